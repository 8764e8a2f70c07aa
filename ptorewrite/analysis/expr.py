"""Symbolic integer expressions for shapes, trip counts, offsets and slot indices.

The front end keeps an expression symbolic when it depends on a loop variable or a
runtime value, so that later stages can reason about `k % 2` per iteration and the
emulator can evaluate it with concrete values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

Number = int | float | bool


class Expr:
    """Base class of symbolic scalar expressions (immutable, hashable)."""

    def eval(self, env: Mapping[str, Number]) -> Number:
        raise NotImplementedError

    def free_vars(self) -> frozenset[str]:
        raise NotImplementedError

    def subst(self, env: Mapping[str, Expr]) -> Expr:
        raise NotImplementedError

    @property
    def is_const(self) -> bool:
        return isinstance(self, Const)

    def const_value(self) -> Number | None:
        return self.value if isinstance(self, Const) else None


@dataclass(frozen=True)
class Const(Expr):
    value: Number

    def eval(self, env):
        return self.value

    def free_vars(self):
        return frozenset()

    def subst(self, env):
        return self

    def __str__(self):
        if isinstance(self.value, bool):
            return "true" if self.value else "false"
        return str(self.value)


@dataclass(frozen=True)
class Var(Expr):
    """A loop induction variable, a kernel argument or another runtime value."""

    name: str

    def eval(self, env):
        try:
            return env[self.name]
        except KeyError:
            raise UnboundValue(self.name) from None

    def free_vars(self):
        return frozenset({self.name})

    def subst(self, env):
        return env.get(self.name, self)

    def __str__(self):
        return self.name


class UnboundValue(KeyError):
    """Evaluation needed a runtime value that was not given."""

    @property
    def name(self) -> str:
        return self.args[0]


def c_div(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return a / b
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_mod(a, b):
    return a - c_div(a, b) * b


C_OPERATORS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": c_div,
    "%": c_mod,
    "<<": lambda a, b: a << b,
    ">>": lambda a, b: a >> b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "&&": lambda a, b: bool(a) and bool(b),
    "||": lambda a, b: bool(a) or bool(b),
}

BINARY_OPS = frozenset(C_OPERATORS)


@dataclass(frozen=True)
class BinOp(Expr):
    op: str
    lhs: Expr
    rhs: Expr

    def eval(self, env):
        return C_OPERATORS[self.op](self.lhs.eval(env), self.rhs.eval(env))

    def free_vars(self):
        return self.lhs.free_vars() | self.rhs.free_vars()

    def subst(self, env):
        return binop(self.op, self.lhs.subst(env), self.rhs.subst(env))

    def __str__(self):
        return f"({self.lhs} {self.op} {self.rhs})"


@dataclass(frozen=True)
class UnOp(Expr):
    op: str  # "-", "!", "~"
    operand: Expr

    def eval(self, env):
        v = self.operand.eval(env)
        return {"-": lambda x: -x, "!": lambda x: not x, "~": lambda x: ~x}[self.op](v)

    def free_vars(self):
        return self.operand.free_vars()

    def subst(self, env):
        return unop(self.op, self.operand.subst(env))

    def __str__(self):
        return f"{self.op}{self.operand}"


@dataclass(frozen=True)
class Select(Expr):
    cond: Expr
    then: Expr
    other: Expr

    def eval(self, env):
        return self.then.eval(env) if self.cond.eval(env) else self.other.eval(env)

    def free_vars(self):
        return self.cond.free_vars() | self.then.free_vars() | self.other.free_vars()

    def subst(self, env):
        return select(self.cond.subst(env), self.then.subst(env), self.other.subst(env))

    def __str__(self):
        return f"({self.cond} ? {self.then} : {self.other})"


def binop(op: str, lhs: Expr, rhs: Expr) -> Expr:
    """Build a binary expression, folding constants and trivial identities."""
    if isinstance(lhs, Const) and isinstance(rhs, Const):
        return Const(C_OPERATORS[op](lhs.value, rhs.value))
    if op in ("&&", "||"):
        # `x && false` is false and `x || true` true whatever x is (either side). An expression
        # has no side effects to keep: what the source's operands do (a call that issues work, a
        # read of GM) is lowered to statements of its own before the expression, and the right
        # operand's are guarded by the left (parse/effects.py), so folding drops only a value.
        absorbing = op == "||"
        if any(isinstance(e, Const) and bool(e.value) == absorbing for e in (lhs, rhs)):
            return Const(absorbing)
        # `true && x` and `false || x` are x when x is already a truth value (a comparison, a
        # logical operation): a condition read with a loop's one value (`(0 == 0) && more`).
        for a, b in ((lhs, rhs), (rhs, lhs)):
            if isinstance(a, Const) and bool(a.value) != absorbing and _is_truth(b):
                return b
    if op == "+":
        if rhs == ZERO:
            return lhs
        if lhs == ZERO:
            return rhs
    if op == "-" and rhs == ZERO:
        return lhs
    if op == "*":
        if ZERO in (lhs, rhs) and not _is_float(lhs) and not _is_float(rhs):
            return ZERO
        if rhs == ONE:
            return lhs
        if lhs == ONE:
            return rhs
    if op == "/" and rhs == ONE:
        return lhs
    return BinOp(op, lhs, rhs)


def _is_truth(e: Expr) -> bool:
    """Whether e's value is a truth value (bool), whatever its operands."""
    if isinstance(e, Const):
        return isinstance(e.value, bool)
    if isinstance(e, BinOp):
        return e.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||")
    if isinstance(e, UnOp):
        return e.op == "!"
    if isinstance(e, Select):
        return _is_truth(e.then) and _is_truth(e.other)
    return False


def _is_float(e: Expr) -> bool:
    return isinstance(e, Const) and isinstance(e.value, float)


def unop(op: str, operand: Expr) -> Expr:
    if isinstance(operand, Const):
        return Const(UnOp(op, operand).eval({}))
    return UnOp(op, operand)


def select(cond: Expr, then: Expr, other: Expr) -> Expr:
    if isinstance(cond, Const):
        return then if cond.value else other
    return Select(cond, then, other)


ZERO = Const(0)
ONE = Const(1)


def as_expr(v: Expr | Number) -> Expr:
    return v if isinstance(v, Expr) else Const(v)


def try_eval(e: Expr, env: Mapping[str, Number]) -> Number | None:
    """Evaluate if every free variable is bound, else None."""
    try:
        return e.eval(env)
    except UnboundValue:
        return None


def cpp_text(e: Expr, names: Mapping[str, str] | None = None) -> str:
    """C++ spelling of an expression; `names` maps IR variable names to C++ ones (loop
    variables of MultiBuffered loops are `ctx.iter`); otherwise a `#n` suffix is dropped."""
    names = names or {}
    if isinstance(e, Const):
        return ("true" if e.value else "false") if isinstance(e.value, bool) else str(e.value)
    if isinstance(e, Var):
        return names.get(e.name, e.name.split("#")[0])
    if isinstance(e, BinOp):
        return f"({cpp_text(e.lhs, names)} {e.op} {cpp_text(e.rhs, names)})"
    if isinstance(e, UnOp):
        return f"{e.op}{cpp_text(e.operand, names)}"
    if isinstance(e, Select):
        return f"({cpp_text(e.cond, names)} ? {cpp_text(e.then, names)} : {cpp_text(e.other, names)})"
    raise TypeError(type(e).__name__)


Linear = tuple[dict[str, int], int]


def linear(e: Expr) -> Linear | None:
    """Integer affine form of `e`: ({variable: coefficient}, constant), or None."""
    if isinstance(e, Const):
        return ({}, int(e.value)) if isinstance(e.value, int) else None
    if isinstance(e, Var):
        return {e.name: 1}, 0
    if isinstance(e, UnOp) and e.op == "-":
        x = linear(e.operand)
        return None if x is None else ({k: -v for k, v in x[0].items()}, -x[1])
    if isinstance(e, BinOp) and e.op in ("+", "-", "*"):
        x, y = linear(e.lhs), linear(e.rhs)
        if x is None or y is None:
            return None
        if e.op == "*":
            if not x[0]:
                x, y = y, x
            if y[0]:
                return None
            c = y[1]
            return {k: v * c for k, v in x[0].items() if v * c}, x[1] * c
        sign = 1 if e.op == "+" else -1
        out = dict(x[0])
        for k, v in y[0].items():
            out[k] = out.get(k, 0) + sign * v
        return {k: v for k, v in out.items() if v}, x[1] + sign * y[1]
    return None


def affine_normal(e: Expr) -> Expr:
    """e with every integer affine subexpression rewritten as its terms in name order followed
    by one constant, so that two spellings of one value (`(t - 6) + 8 - 2` and `t`) become the
    same expression."""
    form = linear(e)
    if form is not None:
        terms, const = form
        out: Expr | None = None
        for name in sorted(terms):
            k = terms[name]
            term: Expr = Var(name) if abs(k) == 1 else binop("*", Const(abs(k)), Var(name))
            if out is None:
                out = term if k > 0 else unop("-", term)
            else:
                out = binop("+" if k > 0 else "-", out, term)
        if out is None:
            return Const(const)
        return out if const == 0 else binop("+" if const > 0 else "-", out, Const(abs(const)))
    if isinstance(e, BinOp):
        return binop(e.op, affine_normal(e.lhs), affine_normal(e.rhs))
    if isinstance(e, UnOp):
        return unop(e.op, affine_normal(e.operand))
    if isinstance(e, Select):
        return select(affine_normal(e.cond), affine_normal(e.then), affine_normal(e.other))
    return e

