"""Which GM accesses can depend on which, decided from the addresses' text (a dependence test).

The sync planner runs a bounded part of the kernel (see `periodic`), so a GM dependence between
iterations it leaves out, or at a distance larger than it runs, would not show in its trace. GM
addresses are affine in loop variables in real kernels (`out + i * TILE`), and for those the
distance is computed exactly, as compilers do: two windows [A, A + Ea) and [B, B + Eb) overlap
iff -Eb < B - A < Ea, and B - A is an affine function of the iteration distance.

Every pair of accesses to one pointer argument, at least one of them a write, is one of:
- *exact*: both addresses are affine with equal coefficients for every shared loop variable and
  runtime value, nothing else varies, and the distances at which they overlap are bounded. The
  planner evaluates those addresses (runtime values set to 0: only differences matter) and runs
  each loop at least that many iterations past every window (`margin`).
- *may*: anything else (an address the text does not pin down, loops the two do not share,
  distances that grow with a trip count). The planner then treats the latest earlier instance of
  the one as a dependence of each instance of the other, whatever the bytes: ordering the latest
  instance of a statement orders every earlier one on its pipe, so no distance escapes.
Pointer arguments that nothing writes have no dependences at all, and neither have two accesses
whose windows stay apart over every value of the loop variables they use (constant starts and
steps; a runtime trip count leaves the range open on one side). Those values are the loop's own
(a loop by twos skips the odd ones), less those an enclosing `if` on the variable alone excludes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil, floor, inf

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import BinOp, Const, Expr, UnOp, Var

MAX_DISTANCE = 16  # exact dependences farther apart than this many iterations are treated as "may"

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


@dataclass
class _Access:
    instr: ir.Instr
    write: bool
    param: str
    form: Linear | None  # byte offset
    extent: int | None  # bytes from the offset to one past the last byte of the window
    loops: list[ir.For]  # enclosing loops, outermost first
    # Enclosing conditions: (condition, the branch taken, the loops enclosing the `if`).
    guards: list[tuple[Expr, bool, list[ir.For]]] = field(default_factory=list)


@dataclass
class GmPairs:
    written: set[str] = field(default_factory=set)  # pointer arguments some instruction writes
    may: dict[int, set[int]] = field(default_factory=dict)  # instr uid -> uids of "may" partners
    exact: set[int] = field(default_factory=set)  # instr uids with some exact pair (their bytes matter)
    margin: dict[int, int] = field(default_factory=dict)  # id(For) -> farthest exact dependence, in iterations

    def partners(self, instr: ir.Instr) -> set[int]:
        return self.may.get(instr.uid, set())


def _const_int(e: Expr) -> int | None:
    return e.value if isinstance(e, Const) and isinstance(e.value, int) and not isinstance(e.value, bool) else None


def exact_address(g: ir.GmTensor) -> bool:
    """The window's offset is affine and its extent constant: its bytes can be evaluated."""
    return linear(g.offset_bytes) is not None and _extent(g) is not None


def _extent(g: ir.GmTensor) -> int | None:
    shape = [_const_int(x) for x in g.shape]
    stride = [_const_int(x) for x in g.stride]
    if None in shape or None in stride:
        return None
    es = max(1, ir.DTYPE_BYTES[g.dtype])  # as the execution counts packed elements
    return ceil((sum((n - 1) * s for n, s in zip(shape, stride)) + 1) * es)


def _accesses(kernel: ir.Kernel) -> list[_Access]:
    out: list[_Access] = []

    def visit(s: ir.Stmt, loops: list[ir.For], guards: list):
        if isinstance(s, ir.Instr):
            for a in s.args:
                if a.kind == "gm":
                    g = a.value.tensor
                    for write in (False, True):
                        if (a.writes if write else a.reads):
                            out.append(_Access(s, write, g.param, linear(g.offset_bytes), _extent(g), loops, guards))
        elif isinstance(s, ir.Block):
            for x in s.stmts:
                visit(x, loops, guards)
        elif isinstance(s, ir.For):
            visit(s.body, loops + [s], guards)
        elif isinstance(s, ir.If):
            visit(s.then, loops, guards + [(s.cond, True, loops)])
            if s.other is not None:
                visit(s.other, loops, guards + [(s.cond, False, loops)])

    visit(kernel.body, [], [])
    return out


def classify(kernel: ir.Kernel) -> GmPairs:
    out = GmPairs()
    accesses = _accesses(kernel)
    out.written = {a.param for a in accesses if a.write}
    runtime = set(kernel.runtime_values)
    by_param: dict[str, list[_Access]] = {}
    for a in accesses:
        if a.param in out.written:
            by_param.setdefault(a.param, []).append(a)
    for group in by_param.values():
        for i, a in enumerate(group):
            for b in group[i:]:
                if not (a.write or b.write) or _never_overlap(a, b):
                    continue
                margins = _exact(a, b, runtime)
                if margins is None:
                    out.may.setdefault(a.instr.uid, set()).add(b.instr.uid)
                    out.may.setdefault(b.instr.uid, set()).add(a.instr.uid)
                    continue
                out.exact |= {a.instr.uid, b.instr.uid}
                for loop_id, d in margins.items():
                    out.margin[loop_id] = max(out.margin.get(loop_id, 0), d)
    return out


def _value_range(var: str, loops: list[ir.For]) -> tuple[float, float] | None:
    """The least and greatest value `var` takes as the variable of the innermost of `loops` it
    names, when that loop's start and step are constants: from the start on in the step's
    direction, up to the last value when the trip count is a constant too, unbounded otherwise."""
    loop = next((x for x in reversed(loops) if x.var == var), None)
    if loop is None or not loop.counted:
        return None
    start, step, trips = _const_int(loop.start), _const_int(loop.step), loop.trip_count()
    if start is None or not step or trips == 0:
        return None
    last = start + step * (trips - 1) if trips is not None else step * inf
    return min(start, last), max(start, last)


ENUMERATE = 4096  # most loop-variable values (or sums of them) the exact overlap test lists


def _values(var: str, access: _Access) -> tuple[int, int, int | None, list[int] | None] | None:
    """The values `var` takes at `access` as the variable of the innermost enclosing loop naming
    it: (start, step, trip count or None when it is a runtime value, the values themselves when
    the trip count is a constant of at most ENUMERATE, less those an `if` on the variable alone
    between the loop and the access excludes). None: not a counted loop with constant start and step."""
    loop = next((x for x in reversed(access.loops) if x.var == var), None)
    if loop is None or not loop.counted:
        return None
    start, step, trips = _const_int(loop.start), _const_int(loop.step), loop.trip_count()
    if start is None or not step:
        return None
    if trips is None or trips > ENUMERATE:
        return start, step, trips, None
    values = [start + step * t for t in range(trips)]
    for cond, taken, at in access.guards:
        # The condition reads only this loop's variable (which the loop body cannot assign).
        if cond.free_vars() != {var} or loop not in at or next(x for x in reversed(at) if x.var == var) is not loop:
            continue
        kept = []
        for v in values:
            try:
                holds = bool(cond.eval({var: v}))
            except Exception:  # noqa: BLE001 - a value the condition cannot be evaluated at stays
                kept.append(v)
                continue
            if holds == taken:
                kept.append(v)
        values = kept
    return start, step, trips, values


def _never_overlap_exact(a: _Access, b: _Access) -> bool | None:
    """`_never_overlap` decided over the loop variables' values themselves (steps and guards
    included); None when a variable's values are not known or too many to list."""
    sums = {b.form[1] - a.form[1]}
    open_term = None  # (coefficient per iteration, first value) of the one runtime-trip variable
    for access, sign in ((a, -1), (b, 1)):
        for var, c in access.form[0].items():
            r = _values(var, access)
            if r is None:
                return None
            start, step, trips, values = r
            if trips == 0 or values == []:
                return True  # the access never runs
            if values is None:
                if open_term is not None or trips is not None:
                    return None
                open_term = (sign * c * step, sign * c * start)
                continue
            sums = {x + sign * c * v for x in sums for v in values}
            if len(sums) > ENUMERATE:
                return None
    lo, hi = -b.extent, a.extent  # overlap iff lo < B - A < hi
    for x in sums:
        if open_term is None:
            if lo < x < hi:
                return False
            continue
        cc, first = open_term
        ends = sorted(((lo - x - first) / cc, (hi - x - first) / cc))
        if ceil(ends[1]) - 1 >= max(0, floor(ends[0]) + 1):  # some iteration t >= 0 lands inside
            return False
    return True


def _never_overlap(a: _Access, b: _Access) -> bool:
    """No instance of `b` touches a byte of any instance of `a`: with every loop variable of
    either address taken anywhere in its range (independently, which covers every pair of
    iterations; a runtime trip count leaves one end open), B - A stays outside (-Eb, Ea).
    Addresses with anything else in them: False."""
    if a.form is None or b.form is None or a.extent is None or b.extent is None:
        return False
    exact = _never_overlap_exact(a, b)
    if exact is not None:
        return exact
    lo = hi = b.form[1] - a.form[1]
    for access, sign in ((a, -1), (b, 1)):
        for var, c in access.form[0].items():
            r = _value_range(var, access.loops)
            if r is None:
                return False
            ends = (sign * c * r[0], sign * c * r[1])
            lo, hi = lo + min(ends), hi + max(ends)
    return hi <= -b.extent or lo >= a.extent


def _overlaps_at(c: int, lo_v: float, hi_v: float) -> bool:
    """Some integer m != 0 has lo_v < c * m < hi_v."""
    for sign in (1, -1):
        cc = c * sign
        ends = sorted((lo_v / cc, hi_v / cc))
        if ceil(ends[1]) - 1 >= max(1, floor(ends[0]) + 1):
            return True
    return False


def _exact(a: _Access, b: _Access, runtime: set[str]) -> dict[int, int] | None:
    """Per shared loop, the farthest iteration distance at which the two overlap; None: "may"."""
    if a.form is None or b.form is None or a.extent is None or b.extent is None:
        return None
    common = [x for x, y in zip(a.loops, b.loops) if x is y]
    common_vars = {x.var: x for x in common}
    private = {x.var for x in a.loops + b.loops} - set(common_vars)
    ca, cb = a.form[0], b.form[0]
    for v in set(ca) | set(cb):
        if v in common_vars or v in runtime:
            if ca.get(v, 0) != cb.get(v, 0):
                return None
        elif v in private:
            return None
        else:
            return None  # a mutable local or anything else the address depends on
    steps: list[int | None] = []  # address change per iteration; None: the step is a runtime value
    trips = []
    for i, x in enumerate(common):
        c = ca.get(x.var, 0)
        if c and not x.counted:
            return None  # a geometric or otherwise general loop: no fixed distance per iteration
        step = _const_int(x.step) if x.counted else None
        if c and i > 0 and (step is None or _const_int(x.start) is None):
            return None
        steps.append(c * step if step is not None else (c or None))
        trips.append(x.trip_count())
    k = b.form[1] - a.form[1]
    margins: dict[int, int] = {}
    for level, x in enumerate(common):
        inner = list(range(level + 1, len(common)))
        spread = 0
        for m in inner:
            if steps[m]:
                if trips[m] is None:
                    return None
                spread += abs(steps[m]) * max(0, trips[m] - 1)
        if steps[level] is not None and (not x.counted or _const_int(x.step) is None):
            # A runtime step (a grid-stride loop): the address moves by c * step * d for some
            # step * d of at least 1 in size. Exact only when no such move overlaps.
            if _overlaps_at(steps[level], -b.extent - k - spread, a.extent - k + spread):
                return None
            continue
        far = 0
        for c, kk in ((steps[level] or 0, k), (-(steps[level] or 0), k)):
            # B - A = c * d + (inner terms in [-spread, spread]) + kk, overlapping iff in (-Eb, Ea).
            lo_v, hi_v = -b.extent - kk - spread, a.extent - kk + spread
            if c == 0:
                if lo_v < 0 < hi_v:
                    far = max(far, 1)
                continue
            ends = sorted((lo_v / c, hi_v / c))
            d_hi = ceil(ends[1]) - 1
            d_lo = max(1, floor(ends[0]) + 1)
            if d_hi >= d_lo:
                far = max(far, d_hi)
        if far > MAX_DISTANCE:
            return None
        if far:
            margins[id(x)] = max(margins.get(id(x), 0), far)
            for m in inner:
                if steps[m]:
                    if trips[m] - 1 > MAX_DISTANCE:
                        return None
                    margins[id(common[m])] = max(margins.get(id(common[m]), 0), trips[m] - 1)
    return margins
