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
from ptorewrite.analysis.bound_facts import (
    Interval,
    LoopBound,
    condition_test,
    loop_bound,
    narrow,
    restrict,
    signed_params,
)
from ptorewrite.analysis.expr import BinOp, Const, Expr, Linear, Var, linear

MAX_DISTANCE = 16  # exact dependences farther apart than this many iterations are treated as "may"

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
    # Signed parameters' values whenever the access runs, from the conditions of the enclosing
    # `if`s and loops (`bound_facts`).
    known: dict[str, Interval] = field(default_factory=dict)
    bounds: dict[int, LoopBound] = field(default_factory=dict)  # id(For) -> its condition as a bound
    instr_offset: Expr = field(default_factory=lambda: Const(0))  # the byte offset as written


@dataclass
class GmPairs:
    written: set[str] = field(default_factory=set)  # pointer arguments some instruction writes
    may: dict[int, set[int]] = field(default_factory=dict)  # instr uid -> uids of "may" partners
    exact: set[int] = field(default_factory=set)  # instr uids with some exact pair (their bytes matter)
    margin: dict[int, int] = field(default_factory=dict)  # id(For) -> farthest exact dependence, in iterations
    # A "may" pair of an access in a loop and one outside it, at a constant address: (uid inside,
    # uid outside) -> (the loop, the values of its variable at which the windows meet); None when
    # some pair of their accesses meets at values not listed.
    meets: dict[tuple[int, int], tuple[ir.For, frozenset[int]] | None] = field(default_factory=dict)

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
    signed = signed_params(kernel)
    bounds: dict[int, LoopBound] = {}

    def visit(s: ir.Stmt, loops: list[ir.For], guards: list, known: dict, inlined: bool):
        if isinstance(s, ir.Instr):
            for a in s.args:
                if a.kind == "gm":
                    g = a.value.tensor
                    for write in (False, True):
                        if (a.writes if write else a.reads):
                            out.append(_Access(s, write, g.param, linear(g.offset_bytes), _extent(g), loops, guards,
                                               known, bounds, g.offset_bytes))
        elif isinstance(s, ir.Block):
            for x in s.stmts:
                visit(x, loops, guards, known, inlined or s.inlined)
        elif isinstance(s, ir.For):
            bound = loop_bound(kernel, s, signed) if not inlined else None
            start = _const_int(s.start)
            if bound is not None and start is not None:
                bounds[id(s)] = bound
                known = narrow(known, bound, start)  # some iteration runs: the first one's condition held
            visit(s.body, loops + [s], guards, known, inlined)
        elif isinstance(s, ir.If):
            test = condition_test(kernel, s, signed) if not inlined else None
            for taken, body in ((True, s.then), (False, s.other)):
                if body is not None:
                    visit(body, loops, guards + [(s.cond, taken, loops)],
                          restrict(known, test, taken) if test is not None else known, inlined)

    visit(kernel.body, [], [], {}, False)
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
                if _same_ring_slots(a, b):
                    out.exact |= {a.instr.uid, b.instr.uid}  # the slot each instance names decides
                    continue
                margins = _exact(a, b, runtime)
                if margins is None:
                    out.may.setdefault(a.instr.uid, set()).add(b.instr.uid)
                    out.may.setdefault(b.instr.uid, set()).add(a.instr.uid)
                    for inner, outer in ((a, b), (b, a)):
                        _note_meets(out.meets, inner, outer)
                    continue
                out.exact |= {a.instr.uid, b.instr.uid}
                for loop_id, d in margins.items():
                    out.margin[loop_id] = max(out.margin.get(loop_id, 0), d)
    return out


def _ring_counters(e: Expr) -> set[tuple[str, int]] | None:
    """(counter, SlotNum) of each `counter % SlotNum` in a FIFO slot's address (a counter is a
    variable the FIFO lowering made: its name holds a '.'), or None when a counter occurs any
    other way."""
    out: set[tuple[str, int]] = set()

    def visit(x: Expr) -> bool:
        if isinstance(x, BinOp) and x.op == "%" and isinstance(x.lhs, Var) and "." in x.lhs.name and \
                isinstance(x.rhs, Const) and isinstance(x.rhs.value, int) and x.rhs.value > 0:
            out.add((x.lhs.name, x.rhs.value))
            return True
        if isinstance(x, Var):
            return "." not in x.name
        if isinstance(x, BinOp):
            return visit(x.lhs) and visit(x.rhs)
        return not any("." in v for v in x.free_vars())

    return out if visit(e) else None


def _same_ring_slots(a: _Access, b: _Access) -> bool:
    """Two moves through the slots of one FIFO ring in GM (`counter % SlotNum` of one counter in
    both addresses, nothing else varying but constants): each instance's slot is evaluated by the
    planner from the counter's value there (`bounded`), and two instances that name one slot have
    the ring's free wait between them (the pipe's own protocol), which orders them
    (`deps.dynamic_deps`)."""
    ca, cb = _ring_counters(a.instr_offset), _ring_counters(b.instr_offset)
    if not ca or ca != cb or len(ca) != 1 or a.extent is None or b.extent is None:
        return False
    rest = {v for e in (a.instr_offset, b.instr_offset) for v in e.free_vars() if "." not in v}
    return not rest


MAX_MEETS = 64  # most loop-variable values at which a pair meets that `meets` lists


def _note_meets(meets: dict, inner: _Access, outer: _Access) -> None:
    """Record at which values of its loop's variable `inner` can meet `outer` (see GmPairs.meets)."""
    key = (inner.instr.uid, outer.instr.uid)
    if key in meets and meets[key] is None:
        return
    got = _meeting_values(inner, outer)
    if got is None or (key in meets and meets[key][0] is not got[0]):
        meets[key] = None
        return
    meets[key] = (got[0], got[1] | (meets[key][1] if key in meets else frozenset()))


def _meeting_values(inner: _Access, outer: _Access) -> tuple[ir.For, frozenset[int]] | None:
    """(loop, values): `inner`'s address is c * v + k for the variable v of a counted loop with a
    constant start and step that `outer` is not in, `outer`'s a constant: the windows meet only
    at the listed values of v. None otherwise, or when they are more than MAX_MEETS."""
    if inner.form is None or outer.form is None or inner.extent is None or outer.extent is None:
        return None
    if outer.form[0] or len(inner.form[0]) != 1:
        return None
    (var, c), = inner.form[0].items()
    loop = next((x for x in reversed(inner.loops) if x.var == var), None)
    if loop is None or not loop.counted or any(x is loop for x in outer.loops):
        return None
    start, step, trips = _const_int(loop.start), _const_int(loop.step), loop.trip_count()
    if start is None or not step:
        return None
    # Overlap iff -E_inner < c * v + k < E_outer, k the constant part of inner's offset less outer's.
    k = inner.form[1] - outer.form[1]
    ends = sorted(((-inner.extent - k) / c, (outer.extent - k) / c))
    first, last = floor(ends[0]) + 1, ceil(ends[1]) - 1
    if last - first >= MAX_MEETS * abs(step):
        return None
    values = set()
    for v in range(first, last + 1):
        t, r = divmod(v - start, step)
        if r == 0 and t >= 0 and (trips is None or t < trips):
            values.add(v)
    return loop, frozenset(values)


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


def _values(var: str, access: _Access, known: dict[str, Interval]) -> tuple[int, int, int | None, list[int] | None] | None:
    """The values `var` takes at `access` as the variable of the innermost enclosing loop naming
    it: (start, step, trip count or None when it is a runtime value, the values themselves when
    the trip count is a constant of at most ENUMERATE, less those an `if` on the variable alone
    between the loop and the access excludes). None: not a counted loop with constant start and step.
    A runtime trip count whose bound is a signed parameter `known` keeps in an interval counts
    as the most iterations that interval allows (more values than run: never fewer)."""
    loop = next((x for x in reversed(access.loops) if x.var == var), None)
    if loop is None or not loop.counted:
        return None
    start, step, trips = _const_int(loop.start), _const_int(loop.step), loop.trip_count()
    if start is None or not step:
        return None
    if trips is None:
        trips = _most_trips(access.bounds.get(id(loop)), loop, start, step, known)
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


def _most_trips(bound: LoopBound | None, loop: ir.For, start: int, step: int, known: dict[str, Interval]) -> int | None:
    """The most iterations of a loop whose bound is c * n + d with n in its known interval."""
    if bound is None or bound.name not in known:
        return None
    name, c = bound.name, bound.coef
    stop = ({name: c}, bound.const)
    lo, hi = known[name]
    farthest = (hi if c > 0 else lo) if step > 0 else (lo if c > 0 else hi)
    if farthest in (inf, -inf):
        return None
    return ir.For(loop.var, Const(start), Const(c * int(farthest) + stop[1]), Const(step), ir.Block([]), None,
                  loop.inclusive).trip_count()


def _common(a: _Access, b: _Access) -> dict[str, Interval] | None:
    """What both accesses' conditions say, or None when no run gets to both."""
    out = dict(a.known)
    for name, (lo, hi) in b.known.items():
        was = out.get(name, (-inf, inf))
        out[name] = (max(was[0], lo), min(was[1], hi))
        if out[name][0] > out[name][1]:
            return None
    return out


def _never_overlap_exact(a: _Access, b: _Access, known: dict[str, Interval]) -> bool | None:
    """`_never_overlap` decided over the loop variables' values themselves (steps and guards
    included); None when a variable's values are not known or too many to list."""
    sums = {b.form[1] - a.form[1]}
    open_term = None  # (coefficient per iteration, first value) of the one runtime-trip variable
    for access, sign in ((a, -1), (b, 1)):
        for var, c in access.form[0].items():
            r = _values(var, access, known)
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
    known = _common(a, b)
    if known is None:
        return True
    if a.form is None or b.form is None or a.extent is None or b.extent is None:
        return False
    exact = _never_overlap_exact(a, b, known)
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
