"""How a loop's body changes from iteration to iteration: its period and its breakpoints.

The sync planner analyses a bounded number of iterations of each loop. That is sound when the
iterations it leaves out behave like ones it keeps. This module decides, for one run of a loop
(the values of the enclosing loops known), how every expression that steers the body depends on
the iteration number k:

- an expression that repeats with period p in k (`i % 2`, a ping-pong variable, a comparison
  of periodic values) is *regular*;
- a comparison of an affine function of k with a known range (`i == 0`, `p == NUM_PANELS - 1`,
  `i + 1 < N`) is regular except in a small window of iterations around the value where it
  flips: a *breakpoint*;
- anything else (`i / 3 % 2`, `j < i`, a comparison with a runtime value, a variable assigned
  inside a nested statement) is *irregular*: the planner treats its value as unknown in every
  iteration of this run, which covers whatever it really is.

The loop's period is the least common multiple of the periods of its regular expressions and
of its state (scalars the body assigns, such as `ping = 1 - ping`, whose cycle is found by
iterating the assignments: they are a deterministic function of the state and of k modulo a
period, so a repeated (k mod period, state) pair proves the sequence periodic from there on).
Iterations that lie at least a margin away from the start, the end and every breakpoint can
then be removed in whole periods without changing what any kept iteration sees.

Values used as C `%` operands are assumed non-negative (tile indices and loop counters are).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from math import ceil, floor, gcd

from ptorewrite.analysis import ir
from ptorewrite.analysis.abstract import evaluate, is_known
from ptorewrite.analysis.expr import BinOp, Const, Expr, Select, UnboundValue, UnOp, Var
from ptorewrite.analysis.instructions import with_fp_forms

WINDOWED_OPS = with_fp_forms("TEXTRACT", "TINSERT")  # ops whose scalar arguments place a window in a tile
STATE_SEARCH = 64  # iterations searched for a cycle of the loop's state


def lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b)


@dataclass(frozen=True)
class Form:
    """value(k) = a * k + r(k), where r repeats with `period` outside the k-intervals `breaks`
    and lies in [lo, hi] (None: not bounded or not known)."""

    a: int = 0
    period: int = 1
    breaks: tuple[tuple[int, int], ...] = ()
    lo: float | None = None
    hi: float | None = None

    @property
    def constant(self) -> bool:
        return self.a == 0 and self.period == 1 and not self.breaks

    @property
    def exact(self) -> int | float | None:
        if self.constant and self.lo is not None and self.lo == self.hi:
            return self.lo
        return None


def _const(v) -> Form:
    if isinstance(v, bool):
        v = int(v)
    return Form(lo=v, hi=v)


UNBOUNDED = Form()


def _add(x: Form, y: Form, sign: int = 1) -> Form:
    lo = hi = None
    if None not in (x.lo, x.hi, y.lo, y.hi):
        if sign > 0:
            lo, hi = x.lo + y.lo, x.hi + y.hi
        else:
            lo, hi = x.lo - y.hi, x.hi - y.lo
    return Form(x.a + sign * y.a, lcm(x.period, y.period), x.breaks + y.breaks, lo, hi)


def _periodic(x: Form, y: Form, lo=None, hi=None) -> Form | None:
    """A combination of two values that repeat (no affine part)."""
    if x.a or y.a:
        return None
    return Form(0, lcm(x.period, y.period), x.breaks + y.breaks, lo, hi)


def _flip_window(a: int, lo, hi) -> tuple[int, int] | None:
    """k-interval where a*k + r changes sign or hits zero, for any r in [lo, hi]."""
    if lo is None or hi is None:
        return None
    ends = (-hi / a, -lo / a)
    return max(0, floor(min(ends))), max(0, ceil(max(ends)))


class Analyser:
    """Forms of expressions in one run of one loop."""

    def __init__(self, var: str, start: int, step: int, env: Mapping[str, object],
                 ranges: dict[str, tuple[int, int] | None], state: dict[str, Form | None]):
        self.var = var
        self.start = start
        self.step = step
        self.env = env
        self.ranges = ranges  # variables of nested loops: their value range
        self.state = state  # scalars the body assigns: their form (None: irregular)

    def form(self, e: Expr) -> Form | None:
        if isinstance(e, Const):
            return _const(e.value) if isinstance(e.value, (int, float, bool)) else UNBOUNDED
        if isinstance(e, Var):
            n = e.name
            if n == self.var:
                return Form(self.step, 1, (), self.start, self.start)
            if n in self.state:
                return self.state[n]
            if n in self.ranges:
                r = self.ranges[n]
                return Form(lo=r[0], hi=r[1]) if r is not None else UNBOUNDED
            v = self.env.get(n)
            return _const(v) if v is not None and is_known(v) and isinstance(v, (int, float, bool)) else UNBOUNDED
        if isinstance(e, UnOp):
            x = self.form(e.operand)
            if x is None:
                return None
            if e.op == "-":
                return Form(-x.a, x.period, x.breaks, None if x.hi is None else -x.hi, None if x.lo is None else -x.lo)
            return None if x.a else Form(0, x.period, x.breaks, 0 if e.op == "!" else None, 1 if e.op == "!" else None)
        if isinstance(e, Select):
            c, t, o = self.form(e.cond), self.form(e.then), self.form(e.other)
            if c is None or t is None or o is None or c.a or t.a or o.a:
                return None
            lo = None if None in (t.lo, o.lo) else min(t.lo, o.lo)
            hi = None if None in (t.hi, o.hi) else max(t.hi, o.hi)
            return Form(0, lcm(c.period, lcm(t.period, o.period)), c.breaks + t.breaks + o.breaks, lo, hi)
        if isinstance(e, BinOp):
            return self._binop(e)
        return None

    def _binop(self, e: BinOp) -> Form | None:
        x, y = self.form(e.lhs), self.form(e.rhs)
        if x is None or y is None:
            return None
        op = e.op
        if op == "+":
            return _add(x, y)
        if op == "-":
            return _add(x, y, -1)
        if op == "*":
            for u, v in ((x, y), (y, x)):
                c = v.exact
                if c is not None and float(c).is_integer():
                    c = int(c)
                    lo, hi = (None, None) if u.lo is None or u.hi is None else sorted((u.lo * c, u.hi * c))
                    return Form(u.a * c, u.period, u.breaks, lo, hi) if c else _const(0)
            bounds = [a * b for a in (x.lo, x.hi) for b in (y.lo, y.hi)] if None not in (x.lo, x.hi, y.lo, y.hi) else None
            return _periodic(x, y, *(min(bounds), max(bounds)) if bounds else (None, None))
        if op in ("/", "%"):
            n = y.exact
            if n is None or not float(n).is_integer() or n <= 0:
                return _periodic(x, y)
            n = int(n)
            if op == "%":
                per = n // gcd(abs(x.a), n) if x.a else 1
                return Form(0, lcm(per, x.period), x.breaks, 0, n - 1)
            if x.a:
                return None
            return Form(0, x.period, x.breaks, None if x.lo is None else floor(x.lo / n),
                        None if x.hi is None else ceil(x.hi / n))
        if op in ("<", "<=", ">", ">=", "==", "!="):
            d = _add(x, y, -1)
            if not d.a:
                return Form(0, d.period, d.breaks, 0, 1)
            if d.period != 1 or d.breaks:
                return None
            w = _flip_window(d.a, d.lo, d.hi)
            return None if w is None else Form(0, 1, (w,), 0, 1)
        if op in ("&&", "||"):
            return _periodic(x, y, 0, 1)
        return _periodic(x, y)


@dataclass
class LoopShape:
    """One run of a loop, as far as the planner's bounded execution needs it."""

    period: int = 1
    breaks: list[tuple[int, int]] = field(default_factory=list)  # k-intervals that must be kept
    irregular: set[int] = field(default_factory=set)  # ids of expressions to treat as unknown
    irregular_where: list[tuple[Expr, object]] = field(default_factory=list)  # (expression, statement) for warnings
    irregular_names: set[str] = field(default_factory=set)  # free names of the irregular expressions


def behaviour(stmt: ir.Stmt, tiles_seen: set[int]):
    """(expression, statement) pairs that steer what a statement does, other than GM addresses:
    conditions, loop bounds, tile indices, alias offsets, valid shapes, window positions and
    assigned values."""
    if isinstance(stmt, ir.If):
        yield stmt.cond, stmt
    elif isinstance(stmt, ir.For):
        for e in stmt.control_exprs():
            yield e, stmt
    elif isinstance(stmt, ir.Assign):
        yield stmt.value, stmt
    elif isinstance(stmt, ir.AliasDef):
        for r in (stmt.dst, stmt.src):
            if r.index is not None:
                yield r.index, stmt
        yield stmt.offset_bytes, stmt
    elif isinstance(stmt, ir.Instr):
        for a in stmt.args:
            if a.kind == "tile":
                ref = a.value
                if ref.index is not None:
                    yield ref.index, stmt
                if id(ref.tile) not in tiles_seen:
                    tiles_seen.add(id(ref.tile))
                    for e in (ref.tile.valid_rows, ref.tile.valid_cols):
                        if e is not None:
                            yield e, stmt
            elif a.kind == "scalar" and stmt.op in WINDOWED_OPS:
                yield a.value, stmt


def _walk_body(stmt: ir.Stmt):
    """Statements of a loop body, with nested loops (but not the loop itself)."""
    yield from ir.walk(stmt)


def analyse(loop: ir.For, start: int, step: int, env: Mapping[str, object]) -> LoopShape:
    """Period, breakpoints and irregular expressions of one run of `loop`, starting at `start`
    with constant `step`, the enclosing values in `env`."""
    shape = LoopShape()
    stmts = list(_walk_body(loop.body))
    ranges: dict[str, tuple[int, int] | None] = {}
    for s in stmts:
        if isinstance(s, ir.For):
            ranges[s.var] = _range(s, env)
    assigned = {s.var for s in stmts if isinstance(s, ir.Assign)}
    state: dict[str, Form | None] = {v: None for v in assigned}
    base = Analyser(loop.var, start, step, env, ranges, state)
    fresh: set[int] = set()  # assignments whose value is the scalar's form (not part of the state)
    for a in _fresh_assignments(loop.body):
        f = base.form(a.value)
        if f is not None and not f.a:
            state[a.var] = f
            fresh.add(id(a))
    assigned -= {a.var for a in stmts if id(a) in fresh}
    if assigned:
        found = _state_cycle(loop, start, step, env, sorted(assigned), base, fresh)
        if found is None:
            # Scalars whose updates read none of those without a cycle (a helper's call counter
            # beside a FIFO's running tile id) still have a cycle of their own.
            found = _separable_cycle(loop, start, step, env, sorted(assigned), base, fresh)
        if found is not None:
            forms, pre = found
            state.update(forms)
            if pre:
                shape.breaks.append((0, pre - 1))
    seen: set[int] = set()
    for s in stmts:
        for e, where in behaviour(s, seen):
            f = base.form(e)
            if f is None or f.a:
                # What an assignment stores is made unknown at that assignment (by the statement):
                # the expression may be one object shared with other statements (a helper's
                # parameter at each of its uses, the caller's loop variable), which must not
                # become unknown with it.
                shape.irregular.add(id(where) if isinstance(where, ir.Assign) else id(e))
                free = e.free_vars()
                shape.irregular_names |= free
                unknown = any(n in env and not is_known(env[n]) for n in free)
                if not unknown and (loop.var in free or free & set(state)):
                    shape.irregular_where.append((e, where))
                continue
            shape.period = lcm(shape.period, f.period)
            shape.breaks.extend(f.breaks)
    for f in state.values():
        if f is not None:
            shape.period = lcm(shape.period, f.period)
    return shape


def _fresh_assignments(body: ir.Block) -> list[ir.Assign]:
    """Assignments that give their scalar a new value in every iteration before anything reads
    it: the scalar's only assignment in `body`, reached from the body of a loop (this one or one
    inside it) through blocks alone, and every read of the scalar comes after it in that body (a
    helper's status word set at each call, the `returned` flag of an inlined helper). Such a
    scalar carries nothing from one iteration to the next: its value is its expression's, read
    where the statement runs."""
    count: dict[str, int] = {}
    for x in ir.walk(body):
        if isinstance(x, ir.Assign):
            count[x.var] = count.get(x.var, 0) + 1
    once = {v for v, n in count.items() if n == 1}
    found: dict[str, ir.Assign] = {}
    bad: set[str] = set()
    live: dict[str, int] = {}  # scalar -> depth of the loop body its assignment is in

    def read(stmt: ir.Stmt, depth: int) -> None:
        for name in _reads(stmt) & once:
            if live.get(name, depth + 1) > depth:
                bad.add(name)

    def visit(stmt: ir.Stmt, depth: int, top: bool) -> None:
        if isinstance(stmt, ir.Block):
            for x in stmt.stmts:
                visit(x, depth, top)
            return
        read(stmt, depth)
        if isinstance(stmt, ir.Assign):
            if stmt.var in once:
                if top:
                    found[stmt.var] = stmt
                    live[stmt.var] = depth
                else:
                    bad.add(stmt.var)
        elif isinstance(stmt, ir.If):
            visit(stmt.then, depth, False)
            if stmt.other is not None:
                visit(stmt.other, depth, False)
        elif isinstance(stmt, ir.For):
            visit(stmt.body, depth + 1, True)
            for name in [n for n, d in live.items() if d > depth]:
                del live[name]  # its loop is over: a later read sees the last iteration's value

    visit(body, 0, True)
    return [a for v, a in found.items() if v not in bad]


def _reads(stmt: ir.Stmt) -> set[str]:
    """Names the statement's own expressions read (not those of the statements inside it)."""
    out: set[str] = set()
    seen: set[int] = set()

    def scan(x, depth: int) -> None:
        if depth > 6 or id(x) in seen:
            return
        seen.add(id(x))
        if isinstance(x, Expr):
            out.update(x.free_vars())
        elif isinstance(x, (list, tuple)):
            for y in x:
                scan(y, depth + 1)
        elif isinstance(x, ir.Stmt):
            return
        elif hasattr(x, "__dataclass_fields__"):
            for name in x.__dataclass_fields__:
                scan(getattr(x, name, None), depth + 1)

    if isinstance(stmt, ir.If):
        scan(stmt.cond, 0)
    elif isinstance(stmt, ir.For):
        for e in stmt.control_exprs():
            scan(e, 0)
    else:
        for name in getattr(stmt, "__dataclass_fields__", {}):
            scan(getattr(stmt, name, None), 1)
    return out


def _range(loop: ir.For, env: Mapping[str, object]) -> tuple[int, int] | None:
    """Values an inner loop's variable takes, when its bounds are known here."""
    if not loop.counted:
        return None
    try:
        vals = [evaluate(x, env) for x in (loop.start, loop.stop, loop.step)]
    except UnboundValue:
        return None
    if not all(is_known(v) and isinstance(v, int) for v in vals):
        return None
    s, _stop, st = vals
    n = loop.trip_count({k: v for k, v in env.items() if is_known(v)})
    if not n or st == 0:
        return (s, s)
    last = s + (n - 1) * st
    return (min(s, last), max(s, last))


class _NotPeriodic(Exception):
    pass


SCALAR_STEPS = 200_000  # statements the state search may execute for one loop


def _steering(stmt: ir.Stmt, names: set[str], fresh: set[int] = frozenset(), only: set[int] | None = None):
    """Expressions the scalar program of `stmt` evaluates: assigned values (but those of the
    `fresh` assignments), conditions of ifs and bounds of loops that assign some of `names`
    (of the statements in `only`, when given)."""
    if only is not None and not isinstance(stmt, ir.Block) and id(stmt) not in only:
        return
    if isinstance(stmt, ir.Assign):
        if id(stmt) not in fresh:
            yield stmt.value
    elif isinstance(stmt, ir.Block):
        for x in stmt.stmts:
            yield from _steering(x, names, fresh, only)
    elif isinstance(stmt, (ir.If, ir.For)) and _assigns(stmt):
        if isinstance(stmt, ir.If):
            yield stmt.cond
            yield from _steering(stmt.then, names, fresh, only)
            if stmt.other is not None:
                yield from _steering(stmt.other, names, fresh, only)
        else:
            yield from stmt.control_exprs()
            yield from _steering(stmt.body, names, fresh, only)


def _assigns(stmt: ir.Stmt) -> bool:
    return any(isinstance(x, ir.Assign) for x in ir.walk(stmt))


def _separable_cycle(loop: ir.For, start: int, step: int, env: Mapping[str, object], names: list[str],
                     base: Analyser, fresh: set[int]):
    """`_state_cycle` of the scalars of `names` that have one apart from the others, or None.

    A scalar's updates are its assignments with the ifs and loops around them in the body; it
    can be run apart with the scalars they read (transitively), a closed program that gives it
    the value the whole body gives it. A scalar is left out when an expression steering its
    updates does not repeat in k with the others held constant (`p.tile_id = tile_id + 4`), sits
    in a loop that is not counted, reads a scalar left out, or when its program has no cycle
    (`n = n + 1`). The rest keep their cycle; the others stay irregular."""
    reads, stmts, bad = _updates(loop.body, names, base, fresh)

    def closure(start_names: set[str]) -> set[str]:
        out, todo = set(), list(start_names)
        while todo:
            v = todo.pop()
            if v in out:
                continue
            out.add(v)
            todo += [u for u in reads.get(v, ()) if u in reads]
        return out

    def attempt(group: set[str]):
        ids = {i for v in group for i in stmts[v]}
        return _state_cycle(loop, start, step, env, [n for n in names if n in group], base, fresh, ids)

    kept = closure({n for n in names if n not in bad})
    if kept & bad or not kept:
        return None
    if len(kept & set(names)) < len(names):
        found = attempt(kept)
        if found is not None:
            return found
    good: set[str] = set()
    found = None
    for n in names:
        if n not in kept or n in good:
            continue
        trial = good | closure({n})
        if trial & bad or len(trial & set(names)) == len(names):
            continue
        got = attempt(trial)
        if got is not None:
            good, found = trial, got
    return found


def _updates(body: ir.Block, names: list[str], base: Analyser,
             fresh: set[int]) -> tuple[dict[str, set[str]], dict[str, set[int]], set[str]]:
    """For every scalar the body assigns: the names its updates read, the statements of its
    updates (each assignment with the ifs and loops around it), and whether it is left out by
    itself (see `_separable_cycle`), with what reads it."""
    as_constants = Analyser(base.var, base.start, base.step, base.env, base.ranges,
                            {k: v for k, v in base.state.items() if k not in names})
    reads: dict[str, set[str]] = {}
    stmts: dict[str, set[int]] = {}
    bad: set[str] = set()
    # A loop variable that keeps its last value after the loop is set by a statement the
    # updates of another scalar do not hold: reading it there, that scalar cannot run apart.
    kept_vars = {x.var for x in ir.walk(body) if isinstance(x, ir.For) and x.keeps_var}

    def visit(stmt: ir.Stmt, around: list[ir.Stmt]) -> None:
        if isinstance(stmt, ir.Block):
            for x in stmt.stmts:
                visit(x, around)
        elif isinstance(stmt, ir.If):
            visit(stmt.then, around + [stmt])
            if stmt.other is not None:
                visit(stmt.other, around + [stmt])
        elif isinstance(stmt, ir.For):
            visit(stmt.body, around + [stmt])
        elif isinstance(stmt, ir.Assign):
            control = [e for a in around for e in ([a.cond] if isinstance(a, ir.If) else a.control_exprs())
                       if e is not None]
            if any(isinstance(a, ir.For) and not a.counted for a in around):
                bad.add(stmt.var)
            outside = kept_vars - {a.var for a in around if isinstance(a, ir.For)}
            if outside & (stmt.value.free_vars() | {v for e in control for v in e.free_vars()}):
                bad.add(stmt.var)
            # A fresh assignment's value has a form of its own (it is not part of the state);
            # what it reads is still needed to run it.
            for e in ([] if id(stmt) in fresh else [stmt.value]) + control:
                f = as_constants.form(e)
                if f is None or f.a or f.breaks:
                    bad.add(stmt.var)
            used = set(stmt.value.free_vars())
            for e in control:
                used |= e.free_vars()
            reads.setdefault(stmt.var, set()).update(used)
            stmts.setdefault(stmt.var, set()).update([id(stmt), *(id(a) for a in around)])

    visit(body, [])
    changed = True
    while changed:
        changed = False
        for v, used in reads.items():
            if v not in bad and used & bad:
                bad.add(v)
                changed = True
    return reads, stmts, bad


class _Scalars:
    """Runs the scalar part of a loop body (assignments, and the ifs and loops around them) on
    known values; anything it cannot decide makes the state not periodic."""

    def __init__(self, fresh: set[int] = frozenset(), only: set[int] | None = None):
        self.steps = 0
        self.fresh = fresh  # assignments outside the state: a value it cannot know is left unset
        self.only = only  # the statements to run (ids; blocks always run); None: all

    def run(self, stmt: ir.Stmt, local: dict) -> None:
        self.steps += 1
        if self.steps > SCALAR_STEPS:
            raise _NotPeriodic
        if self.only is not None and not isinstance(stmt, ir.Block) and id(stmt) not in self.only:
            return
        if isinstance(stmt, ir.Assign):
            if id(stmt) in self.fresh:
                try:
                    local[stmt.var] = self.value(stmt.value, local)
                except _NotPeriodic:
                    local.pop(stmt.var, None)
                return
            local[stmt.var] = self.value(stmt.value, local)
        elif isinstance(stmt, ir.Block):
            for x in stmt.stmts:
                self.run(x, local)
        elif isinstance(stmt, ir.If):
            if not _assigns(stmt):
                return
            if self.value(stmt.cond, local):
                self.run(stmt.then, local)
            elif stmt.other is not None:
                self.run(stmt.other, local)
        elif isinstance(stmt, ir.For):
            if not _assigns(stmt):
                return
            if not stmt.counted:
                raise _NotPeriodic
            v, step = self.value(stmt.start, local), self.value(stmt.step, local)
            if step == 0:
                raise _NotPeriodic
            while True:
                local[stmt.var] = v
                stop = self.value(stmt.stop, local)
                more = (v <= stop if stmt.inclusive else v < stop) if step > 0 else \
                    (v >= stop if stmt.inclusive else v > stop)
                if not more:
                    break
                self.run(stmt.body, local)
                v = v + step
            if not stmt.keeps_var:
                local.pop(stmt.var, None)

    @staticmethod
    def value(e: Expr, local: dict):
        try:
            v = evaluate(e, local)
        except UnboundValue:
            raise _NotPeriodic from None
        if not is_known(v):
            raise _NotPeriodic
        return v


def _state_cycle(loop: ir.For, start: int, step: int, env: Mapping[str, object], names: list[str],
                 base: Analyser, fresh: set[int] = frozenset(), only: set[int] | None = None):
    """Forms of the scalars the body assigns (a ping-pong index flipped inside an `if` or an
    inlined helper, a slot counter of an inner loop), from the cycle of their values at the start
    of each iteration. The body's scalar program is run on known values: it is a deterministic
    function of the state and of k modulo the period of what it evaluates, so a repeated
    (k mod period, state) pair proves the sequence periodic from there on. A scalar with no
    known value before the loop (a local set in the body) is part of the state from the
    iteration after its first assignment; those first iterations are a breakpoint."""
    period = 1
    as_constants = Analyser(base.var, base.start, base.step, base.env, base.ranges,
                            {k: v for k, v in base.state.items() if k not in names})
    for e in _steering(loop.body, set(names), fresh, only):
        f = as_constants.form(e)
        if f is None or f.a or f.breaks:
            return None
        period = lcm(period, f.period)
    state = {n: env.get(n) for n in names}
    seen: dict[tuple, int] = {}
    history: list[dict] = []
    runner = _Scalars(fresh, only)
    try:
        for k in range(STATE_SEARCH + period):
            key = (k % period, tuple(repr(state[n]) for n in names))
            if key in seen and all(v is not None and is_known(v) for v in state.values()):
                pre = seen[key]
                q = k - pre
                forms = {}
                for n in names:
                    vals = [h[n] for h in history[pre:]]
                    if not all(isinstance(v, (int, float, bool)) for v in vals):
                        return None
                    forms[n] = Form(0, q, ((0, pre - 1),) if pre else (), min(vals), max(vals))
                return forms, pre
            seen[key] = k
            history.append(dict(state))
            local = {**env, loop.var: start + k * step,
                     **{n: v for n, v in state.items() if v is not None and is_known(v)}}
            for n, v in state.items():
                if v is None or not is_known(v):
                    local.pop(n, None)
            runner.run(loop.body, local)
            state = {n: local.get(n) for n in names}
    except _NotPeriodic:
        return None
    return None
