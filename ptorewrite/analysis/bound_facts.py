"""What an enclosing loop's bound says about a runtime value, and the tests that decides.

Inside `for (int i = 0; i < n - 1; ++i)` the body runs only while `i < n - 1` holds, so in the
iteration where `i` is 3, `n >= 5`: a test `if (n > 2)` there takes its `then` branch whatever
`n` the kernel is given. The bounded trace (`bounded`) keeps such facts for the iterations of a
loop whose trip count is a runtime value and decides the tests they imply instead of forking.

The facts are plain integer arithmetic, and C++ is that only for signed integers: `i < n - 1`
with an unsigned `i` or `n` wraps at n = 0 and runs on. So a fact or a decision is made only
from source text that is literally one comparison of signed `int`-like names and unsuffixed
decimal literals, spelled in the kernel's own file exactly as the IR has it (no macro, no named
constant, no cast, no helper's parameter): the text is then the expression the IR evaluates, and
C++ evaluates it over mathematical integers as long as nothing overflows (undefined behaviour).
Anything else: no fact, no decision (the trace forks as before).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import inf

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import BinOp, Expr, linear

SIGNED_TYPES = frozenset({
    "int", "signed", "signed int", "short", "short int", "signed short", "long", "long int", "signed long",
    "long long", "long long int", "signed long long", "int8_t", "int16_t", "int32_t", "int64_t", "ptrdiff_t",
})
_TOKEN = re.compile(r"\s*(?:([A-Za-z_]\w*)|(\d+)(?![\w.])|(<=|>=|==|!=|[-+*<>()]))")
_COMPARISONS = ("<=", ">=", "==", "!=", "<", ">")

# An interval of a runtime value: (least, greatest), either end infinite.
Interval = tuple[float, float]


def signed_params(kernel: ir.Kernel) -> frozenset[str]:
    """Scalar parameters of a signed integer type (`const` aside) that no statement assigns: each
    has one value for the whole run."""
    assigned = {s.var for s in ir.walk(kernel.body) if isinstance(s, (ir.Assign, ir.For))}
    out = set()
    for p in kernel.params:
        words = " ".join(w for w in p.type_text.replace("std::", "").split() if w not in ("const", "volatile"))
        if not p.is_pointer and words in SIGNED_TYPES and p.name not in assigned:
            out.add(p.name)
    return frozenset(out)


def _plain(text: str, names: set[str] | frozenset[str]) -> str | None:
    """`text` without blanks and parentheses when it is only `names`, unsuffixed decimal
    literals, + - * and comparisons; else None."""
    out, at = [], 0
    text = text.strip()
    while at < len(text):
        m = _TOKEN.match(text, at)
        if m is None or m.end() == at:
            return None
        name, _, op = m.groups()
        if name is not None and name not in names:
            return None
        if op not in ("(", ")"):
            out.append(m.group().strip())
        at = m.end()
    return "".join(out)


def _spelled(e: Expr) -> str:
    return str(e).replace(" ", "").replace("(", "").replace(")", "")


def _source(kernel: ir.Kernel, loc: ir.SourceRange | None) -> str | None:
    if loc is None or loc.file != kernel.file:
        return None
    return kernel.source[loc.offset:loc.end_offset].decode("utf-8", "replace")


def _parenthesised(text: str, keyword: str) -> str | None:
    """The text between the parentheses after `keyword` at the start of `text`."""
    if not text.startswith(keyword):
        return None
    at = text.find("(")
    if at < 0 or text[len(keyword):at].strip():
        return None
    depth = 0
    for k in range(at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth == 0:
            return text[at + 1:k]
    return None


@dataclass(frozen=True)
class LoopBound:
    """`var < stop` (or <=, >, >=) holds in every iteration; `stop` is c * name + d."""

    name: str
    coef: int
    const: int
    op: str


def loop_bound(kernel: ir.Kernel, loop: ir.For, signed: frozenset[str]) -> LoopBound | None:
    """The loop's condition as a bound on one signed parameter, when the source says exactly
    that: `for (int i = ...; i < n - 1; ...)` with a signed loop variable declared there."""
    if not loop.counted or loop.stop is None or loop.kind != "for" or loop.keeps_var:
        return None
    form = linear(loop.stop)
    if form is None or len(form[0]) != 1:
        return None
    (name, coef), = form[0].items()
    if name not in signed:
        return None
    text = _source(kernel, loop.loc)
    header = _parenthesised(text, "for") if text is not None else None
    if header is None or header.count(";") != 2:
        return None
    init, cond, _ = header.split(";")
    m = re.fullmatch(r"\s*((?:\w+\s+)*?\w+)\s+(\w+)\s*(?:=|\{|\().*", init, re.DOTALL)
    if m is None or m.group(2) != loop.cpp_var or " ".join(m.group(1).split()) not in SIGNED_TYPES:
        return None
    plain = _plain(cond, {loop.cpp_var, name})
    if plain is None or not plain.startswith(loop.cpp_var):
        return None
    rest = plain[len(loop.cpp_var):]
    op = next((o for o in _COMPARISONS if rest.startswith(o)), None)
    if op not in ("<", "<=", ">", ">=") or rest[len(op):] != _spelled(loop.stop):
        return None
    if loop.inclusive != (op in ("<=", ">=")):
        return None
    return LoopBound(name, coef, form[1], op)


def narrow(known: dict[str, Interval], bound: LoopBound, value: int) -> dict[str, Interval]:
    """`known` and what the bound says in the iteration where the loop variable is `value`."""
    # a * x + b >= 0 over the integers, x the parameter.
    a, b = bound.coef, bound.const - value
    if bound.op in ("<", "<="):
        b -= bound.op == "<"
    else:
        a, b = -a, -b - (bound.op == ">")
    lo, hi = known.get(bound.name, (-inf, inf))
    if a > 0:
        lo = max(lo, -(b // a))  # ceil(-b / a), exactly
    else:
        hi = min(hi, -b // a)
    out = dict(known)
    out[bound.name] = (lo, hi)
    return out


def restrict(known: dict[str, Interval], test: tuple[str, int, int, str], value: bool) -> dict[str, Interval]:
    """`known` and what the test taking `value` says (comparisons with a half-line of values)."""
    name, a, b, op = test
    if op in ("==", "!="):
        if (op == "==") != value or -b % a:
            return known
        lo = hi = -b // a
    else:
        if not value:
            op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
        if op in ("<", "<="):
            a, b = -a, -b  # a * x + b < 0  ->  -a * x - b > 0
            op = {"<": ">", "<=": ">="}[op]
        b -= op == ">"  # > 0 over the integers: >= 1
        lo, hi = (-(b // a), inf) if a > 0 else (-inf, -b // a)
    was = known.get(name, (-inf, inf))
    out = dict(known)
    out[name] = (max(was[0], lo), min(was[1], hi))
    return out


def condition_test(kernel: ir.Kernel, s: ir.If, signed: frozenset[str]) -> tuple[str, int, int, str] | None:
    """The `if`'s condition as `a * x + b  op  0` over one signed parameter x, when its source
    text is exactly that comparison: (x, a, b, op)."""
    c = s.cond
    if not isinstance(c, BinOp) or c.op not in _COMPARISONS:
        return None
    form = linear(BinOp("-", c.lhs, c.rhs))
    if form is None or len(form[0]) != 1:
        return None
    (name, a), = form[0].items()
    if name not in signed or c.free_vars() != {name}:
        return None
    text = _source(kernel, s.loc)
    inside = _parenthesised(text, "if") if text is not None else None
    if inside is None or _plain(inside, {name}) != _spelled(c):
        return None
    return name, a, form[1], c.op


def decide(test: tuple[str, int, int, str], known: dict[str, Interval]) -> bool | None:
    """The test's value for every value of its parameter in the known interval, or None."""
    name, a, b, op = test
    lo, hi = known.get(name, (-inf, inf))
    if lo > hi:
        return None  # no run gets here; fork as before

    def holds(x: float) -> bool:
        y = a * x + b if x not in (inf, -inf) else (x if a > 0 else -x)
        return {"<": y < 0, "<=": y <= 0, ">": y > 0, ">=": y >= 0, "==": y == 0, "!=": y != 0}[op]

    if op in ("==", "!="):
        root = -b // a
        inside = -b % a == 0 and lo <= root <= hi
        if not inside:
            return op == "!="
        if lo == hi:
            return op == "=="
        return None
    at_lo, at_hi = holds(lo), holds(hi)  # a comparison of a linear function: a half-line
    return at_lo if at_lo == at_hi else None
