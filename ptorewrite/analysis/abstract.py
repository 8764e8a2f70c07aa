"""Abstract scalar values for the sync planner's bounded executions.

The planner must be right for every runtime value, so it does not pick values for kernel
arguments or the block index: they are UNKNOWN. A loop variable whose start or step is unknown
(a grid-stride loop over get_block_idx() / get_block_num()) is known modulo the slot period of
the tile arrays it indexes: a RESIDUE. Everything the kernel computes from concrete values stays
concrete.

Evaluation follows C semantics on concrete values. An operation with an UNKNOWN operand is
UNKNOWN unless the other operand decides it (`false && x`, `true || x`, `0 * x`). A residue
survives +, - and * and becomes concrete again under `% N` when N divides its modulus (values
that index tiles are never negative, so C's `%` agrees with the mathematical one). The caller
decides what an UNKNOWN means where it is used: a condition takes both branches, a trip count
takes every value, a tile index means any slot, a footprint means the whole tile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from math import gcd

from ptorewrite.analysis.expr import (
    C_OPERATORS,
    BinOp,
    Const,
    Expr,
    Select,
    UnboundValue,
    UnOp,
    Var,
    c_div,
    c_mod,
)


class Unknown:
    """Some value the analysis does not know."""

    _instance: Unknown | None = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        raise TypeError("an unknown value has no truth value; test with is_known()")


UNKNOWN = Unknown()


@dataclass(frozen=True)
class Residue:
    """An integer known only modulo `modulus`; `value` is one representative (0 <= value < modulus)."""

    value: int
    modulus: int

    @classmethod
    def of(cls, value: int, modulus: int) -> Residue | int:
        if modulus == 0:
            return value
        return cls(value % modulus, modulus)


def is_known(v) -> bool:
    return not isinstance(v, (Unknown, Residue))


# C semantics of the binary operators on known values: the table expressions evaluate with.
_CONCRETE = C_OPERATORS


def binary(op: str, a, b):
    """`a op b` on abstract values."""
    if is_known(a) and is_known(b):
        try:
            return _CONCRETE[op](a, b)
        except (ZeroDivisionError, TypeError, ValueError):
            return UNKNOWN
    if op == "&&" and ((is_known(a) and not a) or (is_known(b) and not b)):
        return False
    if op == "||" and ((is_known(a) and a) or (is_known(b) and b)):
        return True
    if op == "*" and ((is_known(a) and a == 0 and isinstance(a, int)) or (is_known(b) and b == 0 and isinstance(b, int))):
        return 0
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    return _residue_op(op, a, b)


def _residue_op(op: str, a, b):
    """At least one operand is a Residue, neither is UNKNOWN."""
    if isinstance(a, float) or isinstance(b, float) or isinstance(a, bool) or isinstance(b, bool):
        return UNKNOWN
    if op in ("+", "-"):
        ma = a.modulus if isinstance(a, Residue) else 0
        mb = b.modulus if isinstance(b, Residue) else 0
        va = a.value if isinstance(a, Residue) else a
        vb = b.value if isinstance(b, Residue) else b
        return Residue.of(va + vb if op == "+" else va - vb, gcd(ma, mb))
    if op == "*":
        if isinstance(a, Residue) and isinstance(b, Residue):
            return Residue.of(a.value * b.value, gcd(a.modulus, b.modulus))
        r, c = (a, b) if isinstance(a, Residue) else (b, a)
        return Residue.of(r.value * c, r.modulus * abs(c))
    if op == "%" and isinstance(a, Residue) and isinstance(b, int) and b > 0 and a.modulus % b == 0:
        return a.value % b
    return UNKNOWN


def unary(op: str, v):
    if isinstance(v, Unknown):
        return UNKNOWN
    if isinstance(v, Residue):
        return Residue.of(-v.value, v.modulus) if op == "-" else UNKNOWN
    return {"-": lambda x: -x, "!": lambda x: not x, "~": lambda x: ~x}[op](v)


def evaluate(e: Expr, env: Mapping[str, object], forced: frozenset[int] | set[int] = frozenset()):
    """Abstract value of `e`. Names missing from `env` raise UnboundValue; expressions whose id is in
    `forced` are UNKNOWN (the caller has found that their value does not repeat, see `periodic`)."""
    if forced and id(e) in forced:
        return UNKNOWN
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Var):
        try:
            return env[e.name]
        except KeyError:
            raise UnboundValue(e.name) from None
    if isinstance(e, BinOp):
        a = evaluate(e.lhs, env, forced)
        if e.op == "&&" and is_known(a) and not a:
            return False
        if e.op == "||" and is_known(a) and a:
            return True
        return binary(e.op, a, evaluate(e.rhs, env, forced))
    if isinstance(e, UnOp):
        return unary(e.op, evaluate(e.operand, env, forced))
    if isinstance(e, Select):
        c = evaluate(e.cond, env, forced)
        if is_known(c):
            return evaluate(e.then if c else e.other, env, forced)
        t, o = evaluate(e.then, env, forced), evaluate(e.other, env, forced)
        return t if is_known(t) and is_known(o) and t == o else UNKNOWN
    raise TypeError(type(e).__name__)


def join(a, b):
    """The value that covers both: equal values stay, anything else is UNKNOWN."""
    if a is b or (is_known(a) and is_known(b) and a == b and type(a) is type(b)):
        return a
    if isinstance(a, Residue) and isinstance(b, Residue) and a == b:
        return a
    return UNKNOWN


# ---------------------------------------------------------------- fast path for known values

_PY = {"+": "+", "-": "-", "*": "*", "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^",
       "<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!="}


_KNOWN_TYPES = frozenset({int, float, bool})


class Compiled:
    """`e` as a Python function of the scalar values, for when they are all known; anything
    else (an unknown or residue value, a division by zero) falls back to `evaluate`."""

    __slots__ = ("expr", "fn", "ids")

    def __init__(self, e: Expr):
        self.expr = e
        self.ids = frozenset(_ids(e))
        names: dict[str, str] = {}
        src = _py(e, names)
        # Only known values take the fast path: an UNKNOWN or a Residue raises TypeError here
        # (Python would happily compare them with ==).
        loads = "".join(f"    {v} = env[{n!r}]\n    if {v}.__class__ not in _known: raise TypeError\n"
                        for n, v in names.items())
        body = f"def f(env, _div=c_div, _mod=c_mod, _known=_KNOWN_TYPES):\n{loads}    return {src}\n"
        scope = {"c_div": c_div, "c_mod": c_mod, "_KNOWN_TYPES": _KNOWN_TYPES}
        exec(body, scope)  # noqa: S102 - source generated from the IR's own expressions
        self.fn = scope["f"]

    def __call__(self, env: Mapping[str, object], forced=frozenset()):
        if forced and not self.ids.isdisjoint(forced):
            return evaluate(self.expr, env, forced)
        try:
            v = self.fn(env)
        except KeyError as k:
            raise UnboundValue(k.args[0]) from None
        except (TypeError, ZeroDivisionError, ValueError, AttributeError):
            return evaluate(self.expr, env, forced)
        return v


def _ids(e: Expr):
    yield id(e)
    for c in (getattr(e, "lhs", None), getattr(e, "rhs", None), getattr(e, "operand", None),
              getattr(e, "cond", None), getattr(e, "then", None), getattr(e, "other", None)):
        if isinstance(c, Expr):
            yield from _ids(c)


def _py(e: Expr, names: dict[str, str]) -> str:
    if isinstance(e, Const):
        return repr(e.value)
    if isinstance(e, Var):
        if e.name not in names:
            names[e.name] = f"v{len(names)}"
        return names[e.name]
    if isinstance(e, BinOp):
        a, b = _py(e.lhs, names), _py(e.rhs, names)
        if e.op in _PY:
            return f"({a} {_PY[e.op]} {b})"
        if e.op == "/":
            return f"_div({a}, {b})"
        if e.op == "%":
            return f"_mod({a}, {b})"
        if e.op == "&&":
            return f"(bool({a}) and bool({b}))"
        return f"(bool({a}) or bool({b}))"
    if isinstance(e, UnOp):
        x = _py(e.operand, names)
        return {"-": f"(-{x})", "!": f"(not {x})", "~": f"(~{x})"}[e.op]
    if isinstance(e, Select):
        return f"({_py(e.then, names)} if {_py(e.cond, names)} else {_py(e.other, names)})"
    raise TypeError(type(e).__name__)
