"""Every execution of a kernel, in bounded size: the sync planner's view of the control flow.

The emulator executes one concrete run (`execution.unroll`). The planner needs all runs at once,
for every runtime value, and at a cost set by the kernel's text. This module produces one
*bounded trace* that stands for all of them:

- **Runtime values are unknown** (see `abstract`). A condition whose value is unknown takes both
  branches: the trace forks, runs each branch from the same state, and joins afterwards. Scalars
  that differ between the branches are unknown after the join. A condition tested again later in
  the same block, over values no statement in between changes, is one decision: the fork is
  made before the first test and joined after the last (`_statements`). In an iteration of a
  loop whose trip count is unknown, the loop's condition held: a test of the bound's runtime
  value that the condition implies takes one branch (`bound_facts`).
- **A loop with an unknown trip count** may stop before any iteration: every iteration boundary
  forks into "exit now" and "run one more". It runs up to H iterations, where H covers the
  loop's breakpoints, a margin and one whole period beyond (see below), so every trip count is
  either run or is equivalent, by periodicity, to one that is.
- **A loop whose start or step is unknown** (a grid-stride loop) forks over the residues of its
  start and step modulo the slot period of the tile arrays it indexes; its variable is a
  `Residue` and `i % 2` is exact in each branch.
- **A long loop with a known trip count** runs its first iterations, its last ones and a window
  around every breakpoint; the iterations in between are left out in whole periods (see
  `periodic`), keeping the variable's real value in every iteration that runs. Expressions
  `periodic` finds irregular are unknown in such a run.

The margin around the start, the end and each breakpoint is P + D iterations, where P is the
loop's period and D the farthest GM dependence distance the dependence test found for the loop
(at least 1); a loop with an unknown trip count runs that margin past its last breakpoint and
P - 1 more iterations, so that every trip count modulo P ends in a settled stretch. `extra`
adds that many periods to every margin.

The planner plans on a trace with these margins and checks its plan on a *checking* trace
(`check=True`), one in which every stretch of regular iterations from which iterations are left
out keeps at least 2P + D - 1 of them: that is what the argument in docs/design.md needs. A
stretch between two windows keeps 2(P + D) already; a stretch that runs to the loop's end keeps
P + D and the remainder, so there a checking trace keeps one more period. The planning trace
lists the loops where it does so (`short`): when there are none, the checking trace is the
planning trace itself.

Trace items are ops, markers (the points before and after each executed statement, where
synchronization can go, with the scalar values there) and fork / alt / join control items, all
in one linear order with increasing positions. A fork's alternatives follow each other, each
starting from the fork's state ("alt" starts the next one); an "exit" keeps the current state as
one more end without leaving the path (a loop that may stop here); the join merges the ends.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ptorewrite.analysis import bound_facts, ir, periodic
from ptorewrite.analysis.abstract import UNKNOWN, Compiled, Residue, evaluate, is_known, join
from ptorewrite.analysis.execution import (
    CLIPPED_GM,
    WINDOWED,
    Access,
    GmOperand,
    Machine,
    Place,
    Placement,
    TileOperand,
    located,
    mark_barrier_inside,
)
from ptorewrite.analysis.expr import BinOp, Const, Expr, UnboundValue, Var
from ptorewrite.analysis.footprint import Footprint, single
from ptorewrite.analysis.gm_pairs import GmPairs, classify, exact_address
from ptorewrite.analysis.gm_pairs import _extent as gm_extent
from ptorewrite.analysis.instructions import is_scratch, uses_hidden_scratch, window_position
from ptorewrite.analysis.unit_flags import UnitFlags
from ptorewrite.arch import TILE_TYPE_BUFFER, ArchProfile
from ptorewrite.diagnostics import PtoError

GENERAL_LIMIT = 64  # iterations of a `for (v = start; cond; v = update)` loop run exactly
STEP = 8  # position distance between items; syncs placed at one marker take the positions in between
MAX_RESIDUE_FORKS = 16
# Decisions (conditions tested more than once, see `_statements`) one path keeps apart at a time:
# each doubles the statements between its tests, so a deeper nest of them is joined as before.
MAX_DECISIONS = 4
# Items (instructions, loop iterations) one bounded trace may hold. The trace keeps a few
# iterations per loop whatever the trip counts, so only a deep nest reaches this; the planner then
# stops with a message instead of running on.
MAX_TRACE_ITEMS = 2_000_000
WHOLE = 1 << 62


@dataclass(eq=False, slots=True)
class Op:
    pos: int
    pipe: str
    stmt: ir.Instr
    accesses: tuple[Access, ...]
    iters: tuple[tuple[int, int], ...]  # (id of each enclosing For, ordinal of the iteration run), outermost first
    ctx: int
    kind: str = "op"
    # Its implementation drains its own pipe after its `early` accesses (as `execution.Step`).
    barrier_inside: bool = False

    @property
    def loc(self) -> ir.SourceRange:
        return self.stmt.loc


@dataclass(eq=False, slots=True)
class Marker:
    stmt: ir.Stmt
    where: str  # "before" or "after"
    env: dict
    pos: int
    ctx: int
    forced: frozenset
    kind: str = "marker"


@dataclass(eq=False, slots=True)
class Control:
    kind: str  # "fork", "alt", "exit", "join"
    fork: int
    pos: int


@dataclass
class LoopRun:
    """How one run of a loop was bounded (for reports and tests)."""

    loop: ir.For
    trips: int | None  # None: unknown
    period: int
    kept: int  # iterations run (per alternative)
    removed: int  # iterations left out


@dataclass
class BoundedTrace:
    kernel: ir.Kernel
    arch: ArchProfile
    items: list
    ops: list[Op]
    markers: dict[tuple[int, str], list[Marker]]
    controls: list[Control]
    ctx_parent: dict[int, int]
    runs: list[LoopRun]
    gm: GmPairs
    irregular: list[tuple[Expr, object, ir.For]] = field(default_factory=list)
    extra: int = 0
    check: bool = False
    # Loops with a stretch of left-out iterations shorter than the argument needs: a checking trace
    # keeps one more period of them (of a checking trace: the loops where it did).
    short: list[ir.For] = field(default_factory=list)
    decisions: int = 0  # forks for a condition tested more than once (see `BoundedMachine._statements`)
    # op position -> uids of "may" partners this instance cannot meet (`BoundedMachine._apart`)
    apart: dict[int, frozenset[int]] = field(default_factory=dict)
    # a2a3 L0C unit-flag steps (analysis.unit_flags): (position, "set"/"wait", src pipe, dst pipe, id)
    handshakes: list[tuple[int, str, str, str, int]] = field(default_factory=list)

    def ctx_within(self, inner: int, outer: int) -> bool:
        """Every path through a point of context `inner` passed the points of context `outer`
        (outer is inner or one of its enclosing alternatives)."""
        while True:
            if inner == outer:
                return True
            if inner not in self.ctx_parent:
                return False
            inner = self.ctx_parent[inner]


class BoundedMachine(Machine):
    def __init__(self, kernel: ir.Kernel, arch: ArchProfile, placement: Placement, gm: GmPairs, extra: int = 0,
                 check: bool = False, decisions: bool = True):
        super().__init__(kernel, arch, {v: UNKNOWN for v in kernel.runtime_values}, placement, markers=True,
                         require_semantics=False, max_instances=MAX_TRACE_ITEMS)
        self.gm = gm
        self.extra = extra
        self.check = check
        self.short: list[ir.For] = []
        self.pos = 0
        self.ctx = 0
        self.ctx_parent: dict[int, int] = {}
        self._ctx_ids = itertools.count(1)
        self._fork_ids = itertools.count(1)
        self.ops: list[Op] = []
        self.controls: list[Control] = []
        self.marker_index: dict[tuple[int, str], list[Marker]] = {}
        self.forced: frozenset = frozenset()
        self.runs: list[LoopRun] = []
        self.irregular: list[tuple[Expr, object, ir.For]] = []
        self.gm_rep: dict[str, int] = {}  # abstract loop variables: a representative for GM addresses
        self.widened: dict[tuple[int, int], Footprint] = {}  # alias slots whose place is not known
        self._exact_gm: dict[int, bool] = {}
        self._env_copy: dict | None = None
        self.decisions = decisions
        self.decision_forks = 0
        self.decided: dict[Expr, bool] = {}  # conditions tested twice, and the value this path took
        # What the conditions of the enclosing loops with an unknown trip count say about signed
        # parameters in this iteration (`bound_facts`); not inside an inlined helper's body.
        self.known: dict[str, bound_facts.Interval] = {}
        self._signed = bound_facts.signed_params(kernel)
        self._inlined = 0
        self._bounds: dict[int, bound_facts.LoopBound | None] = {}
        self._tests: dict[int, tuple | None] = {}
        self.apart: dict[int, frozenset[int]] = {}
        self._meets: dict[int, list] = {}  # uid -> [(partner uid, loop, values)] (GmPairs.meets)
        for (inner, outer), got in gm.meets.items():
            if got is not None:
                self._meets.setdefault(inner, []).append((outer, *got))
        self._period: dict[int, int | None] = {}  # id(For) -> period of its run now (None: every iteration runs)
        self._shapes: dict[tuple, periodic.LoopShape] = {}
        self._assigned_names: dict[int, list[str]] = {}
        self._abstract: dict[int, Compiled] = {}
        self._tile_accesses: dict[tuple, list[Access]] = {}
        self._last: dict[int, object] = {}  # id(For) -> value of its variable after the loop
        self._operands: dict[tuple, list[TileOperand]] = {}
        self._fixed_operands: dict[int, list[TileOperand]] = {}
        self._constant_shapes: dict[int, tuple[int, int] | None] = {}
        # One core of a cluster planned alone (analysis.cluster_view): its FIFO slot tiles and
        # cross-core flags.
        self.cluster = kernel.cluster
        if self.cluster is not None:
            gm.written |= self.cluster.shared_gm  # the other core writes them (or reads what this one writes)
        # The hardware's M <-> FIX handshake of phased matmuls and stores orders an AUTO kernel's
        # pipes as it does the manual rewrite's: the plan adds no sync it already gives.
        self.unit_flags = UnitFlags() if arch.name == "a2a3" else None
        self.handshakes: list[tuple[int, str, str, str, int]] = []

    def limit_error(self, need: int | None, static: bool = False) -> PtoError:
        depth, outer = _deepest_nest(self.kernel.body)
        return PtoError(
            f"the sync analysis would follow more than {self.max_instances:,} instruction and iteration "
            f"instances: it keeps a few iterations of every loop whatever its trip count, and {depth} loops "
            "nest here; split the nest into fewer levels", outer.loc if outer is not None else None)

    # ------------------------------------------------------------------ evaluation

    def eval(self, e: Expr, stmt):
        c = self._abstract.get(id(e))
        if c is None:
            c = self._abstract[id(e)] = Compiled(e)
        try:
            return c(self.env, self.forced)
        except UnboundValue as u:
            raise located(f"'{u.name}' has no value here", stmt) from None

    def run(self) -> BoundedTrace:
        self.block(self.kernel.body)
        return BoundedTrace(self.kernel, self.arch, self.items, self.ops, self.marker_index, self.controls,
                            self.ctx_parent, self.runs, self.gm, self.irregular, self.extra, self.check, self.short,
                            self.decision_forks, self.apart, self._finish_handshakes())

    def block(self, b: ir.Block) -> None:
        self._statements(b.stmts)

    def _next_pos(self) -> int:
        self.pos += STEP
        return self.pos

    def _env_view(self) -> dict:
        """A copy of the scalar values for markers, shared until a value changes."""
        if self._env_copy is None:
            self._env_copy = dict(self.env)
        return self._env_copy

    def _set(self, name: str, value) -> None:
        self.env[name] = value
        self._env_copy = None

    def stmt(self, s: ir.Stmt) -> None:
        m = Marker(s, "before", self._env_view(), self._next_pos(), self.ctx, self.forced)
        self.items.append(m)
        self.marker_index.setdefault((id(s), "before"), []).append(m)
        self.execute(s)
        m = Marker(s, "after", self._env_view(), self._next_pos(), self.ctx, self.forced)
        self.items.append(m)
        self.marker_index.setdefault((id(s), "after"), []).append(m)

    def execute(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.Instr):
            self.instr(s)
        elif isinstance(s, ir.Block):
            self._inlined += s.inlined
            try:
                self._statements(s.stmts)
            finally:
                self._inlined -= s.inlined
        elif isinstance(s, ir.For):
            self.loop(s)
        elif isinstance(s, ir.If):
            c = self.eval(s.cond, s)
            if not is_known(c) and s.cond in self.decided:
                c = self.decided[s.cond]
            if not is_known(c) and self.known and not self._inlined:
                c = self._implied(s, c)
            # A branch body or loop body is never where a sync goes (syncs go before or after the
            # statements in it, or around the if / for): it gets no markers of its own.
            if is_known(c):
                if c:
                    self.execute(s.then)
                elif s.other is not None:
                    self.execute(s.other)
                return
            self.fork([lambda: self.execute(s.then), (lambda: self.execute(s.other)) if s.other is not None else _nothing])
        elif isinstance(s, ir.Assign):
            # `periodic` marks an assignment whose value does not repeat by the statement itself.
            self._set(s.var, UNKNOWN if id(s) in self.forced else self.eval(s.value, s))
        elif isinstance(s, ir.AliasDef):
            self.alias(s)
        # Syncs and TASSIGN of an AUTO kernel compile to nothing.

    def _implied(self, s: ir.If, c):
        """The test's value when the enclosing loops' conditions imply it, else `c`."""
        if id(s) not in self._tests:
            self._tests[id(s)] = bound_facts.condition_test(self.kernel, s, self._signed)
        test = self._tests[id(s)]
        value = bound_facts.decide(test, self.known) if test is not None else None
        if value is None:
            return c
        self.decision_forks += 1
        return value

    def _bound(self, s: ir.For) -> bound_facts.LoopBound | None:
        if not self.decisions or self._inlined:
            return None
        if id(s) not in self._bounds:
            self._bounds[id(s)] = bound_facts.loop_bound(self.kernel, s, self._signed)
        return self._bounds[id(s)]

    # ------------------------------------------------------------------ one decision, tested twice

    def _statements(self, stmts: list[ir.Stmt]) -> None:
        """Run a block's statements. An `if (c)` whose value is unknown, followed in the same block
        by further `if (c)` over values no statement in between changes, is one decision: the trace
        forks once before the first test and joins after the last, so no run takes the first test
        one way and a later one the other."""
        k = 0
        while k < len(stmts):
            last = self._same_decision_end(stmts, k)
            if last is None:
                self.stmt(stmts[k])
                k += 1
                continue
            self.decision_forks += 1
            self.fork([self._decided(stmts[k:last + 1], stmts[k].cond, value) for value in (True, False)])
            k = last + 1

    def _decided(self, stmts: list[ir.Stmt], cond: Expr, value: bool):
        def run() -> None:
            self.decided[cond] = value
            try:
                self._statements(stmts)
            finally:
                del self.decided[cond]
        return run

    def _same_decision_end(self, stmts: list[ir.Stmt], k: int) -> int | None:
        """The index of the last `if` of `stmts` after `k` that tests the condition of the `if` at
        `k` over the same values, or None. The values are the same when no statement from `k` to
        there (bodies, loops and branches in it included) assigns a variable the condition reads:
        the two tests are in one pass over the block, with no loop back edge between them, and an
        expression is a pure function of its variables."""
        first = stmts[k]
        if (not self.decisions or not isinstance(first, ir.If) or first.cond in self.decided or len(self.decided) >= MAX_DECISIONS
                or is_known(self.eval(first.cond, first))):
            return None
        reads = first.cond.free_vars()
        if not reads:
            return None
        last = None
        for j in range(k, len(stmts)):
            s = stmts[j]
            if j > k and isinstance(s, ir.If) and s.cond == first.cond:
                last = j
            if any(_assigns(x) & reads for x in ir.walk(s)):
                break
        return last

    # ------------------------------------------------------------------ forks

    def _control(self, kind: str, fid: int) -> None:
        c = Control(kind, fid, self._next_pos())
        self.items.append(c)
        self.controls.append(c)

    def fork(self, alternatives) -> None:
        """Run each alternative from the current state; afterwards the state covers all their ends."""
        fid = next(self._fork_ids)
        self._control("fork", fid)
        entry_env, entry_iters, entry_ctx, entry_rep = dict(self.env), list(self.iters), self.ctx, dict(self.gm_rep)
        entry_flags = self._flag_state()
        ends, flag_ends = [], []
        for n, alt in enumerate(alternatives):
            if n:
                self._control("alt", fid)
            self.env, self.iters, self.gm_rep = dict(entry_env), list(entry_iters), dict(entry_rep)
            self._env_copy = None
            self._set_flag_state(entry_flags)
            self.ctx = next(self._ctx_ids)
            self.ctx_parent[self.ctx] = entry_ctx
            alt()
            ends.append(self.env)
            flag_ends.append(self._flag_state())
        self._control("join", fid)
        self._join_flag_states(flag_ends)
        self.ctx, self.iters, self.gm_rep = entry_ctx, entry_iters, entry_rep
        merged = dict(ends[0])
        for other in ends[1:]:
            for k in set(merged) | set(other):
                merged[k] = join(merged.get(k, UNKNOWN), other.get(k, UNKNOWN))
        self.env = merged
        self._env_copy = None

    # ------------------------------------------------------------------ loops

    def loop(self, s: ir.For) -> None:
        if not s.counted:
            self._general_loop(s)
            return
        start, step, stop = (self.eval(x, s) for x in (s.start, s.step, s.stop))
        if is_known(step) and step == 0:
            raise located("loop step is 0", s)
        if is_known(start) and is_known(step):
            trips = None
            if is_known(stop) and not (s.stop.free_vars() & self._assigned_in(s)):
                trips = _trips(start, stop, step, s.inclusive)
            if trips is not None:
                self._counted_loop(s, start, step, trips)
            else:
                self._open_loop(s, start, step)
        else:
            self._residue_loop(s, start, step)
        self._leave(s)

    def _leave(self, s: ir.For) -> None:
        """After the loop its variable is gone, or (declared before the loop) keeps the value that
        ended it: known after a loop run to its end, unknown after one that may stop anywhere."""
        self._period.pop(id(s), None)
        if s.keeps_var:
            self._set(s.var, self._last.pop(id(s), UNKNOWN))
        else:
            self.env.pop(s.var, None)
            self._env_copy = None
        self.gm_rep.pop(s.var, None)

    def _general_loop(self, s: ir.For) -> None:
        """`for (v = start; cond; v = update)`. Run exactly when start, condition and update are
        known and it ends within GENERAL_LIMIT iterations; otherwise its trip count is unknown and
        so is its variable."""
        v = self.eval(s.start, s)
        values = []
        env = dict(self.env)
        while is_known(v) and len(values) <= GENERAL_LIMIT:
            env[s.var] = v
            c = evaluate(s.cond, env)
            if not is_known(c):
                break
            if not c:
                for k, x in enumerate(values):
                    self._iteration(s, x, k)
                self._last[id(s)] = v
                self.runs.append(LoopRun(s, len(values), 1, len(values), 0))
                self._leave(s)
                return
            values.append(v)
            nxt = evaluate(s.update, env)
            if is_known(nxt) and nxt == v:
                raise located(f"the loop variable keeps its value {v!r}: the loop would not terminate", s)
            v = nxt
        shape = self._analyse(s, 0, 1)
        self._note_irregular(s, shape)
        p = shape.period
        h = self._open_margin(s, p) + max([hi + 1 for _, hi in shape.breaks], default=0) + p - 1
        saved = self.forced
        self.forced = saved | shape.irregular
        self._run_open(s, h, lambda k: UNKNOWN, None)
        self.forced = saved
        self.runs.append(LoopRun(s, None, p, h, 0))
        self._leave(s)

    def _analyse(self, s: ir.For, start: int, step: int) -> periodic.LoopShape:
        """The loop's shape for this run. It is first found with the enclosing values unknown,
        which all runs share; only when that leaves an expression of known values irregular
        (`j < i` needs i) is it found again with this run's values."""
        assigned = self._assigned_names.get(id(s))
        if assigned is None:
            assigned = self._assigned_names[id(s)] = sorted(self._assigned_in(s))
        env = self.env
        key = (id(s), start, step, tuple(repr(env.get(n)) for n in assigned))
        shape = self._shapes.get(key)
        if shape is None:
            blind = {n: (v if n in assigned else UNKNOWN) for n, v in env.items()}
            shape = self._shapes[key] = periodic.analyse(s, start, step, blind)
        if not any(is_known(env.get(n)) for n in shape.irregular_names):
            return shape
        names = sorted(shape.irregular_names)
        key = key + tuple(repr(env.get(n)) for n in names)
        exact = self._shapes.get(key)
        if exact is None:
            exact = self._shapes[key] = periodic.analyse(s, start, step, env)
        return exact

    def _assigned_in(self, s: ir.For) -> set[str]:
        return {x.var for x in ir.walk(s.body) if isinstance(x, ir.Assign)}

    def _distance(self, s: ir.For) -> int:
        return max(1, self.gm.margin.get(id(s), 0))

    def _margin(self, s: ir.For, period: int) -> int:
        return period + self._distance(s) + self.extra * period

    def _stretch_needed(self, s: ir.For, period: int) -> int:
        """Regular iterations a stretch with left-out iterations keeps in a checking trace:
        2P + D - 1, so that every segment of P + D iterations of the full stretch has a copy
        shifted by whole periods in it (docs/design.md)."""
        return 2 * period + self._distance(s) - 1

    def _lengthen(self, s: ir.For, period: int, shortest: int | None) -> bool:
        """Whether a stretch of `shortest` kept regular iterations (None: nothing left out) makes
        a checking trace keep one more period of this loop run; a planning trace notes the loop."""
        if shortest is None or shortest >= self._stretch_needed(s, period):
            return False
        if not any(x is s for x in self.short):
            self.short.append(s)
        return self.check

    def _open_margin(self, s: ir.For, period: int) -> int:
        """The margin of a loop with an unknown trip count. A run of more than H iterations is the
        path that stops between H - P and H with whole periods left out of its last stretch,
        which keeps at least the margin."""
        r = self._margin(s, period)
        return r + period if self._lengthen(s, period, r) else r

    def _iteration(self, s: ir.For, value, ordinal: int) -> None:
        self.count()
        self._set(s.var, value)
        self.iters.append((id(s), ordinal))
        self.execute(s.body)
        self.iters.pop()

    def _note_irregular(self, s: ir.For, shape: periodic.LoopShape) -> None:
        for e, where in shape.irregular_where:
            self.irregular.append((e, where, s))

    def _counted_loop(self, s: ir.For, start: int, step: int, trips: int) -> None:
        self._last[id(s)] = start + trips * step
        self._period[id(s)] = None
        if trips <= 2:
            for k in range(trips):
                self._iteration(s, start + k * step, k)
            self.runs.append(LoopRun(s, trips, 1, trips, 0))
            return
        shape = self._analyse(s, start, step)
        p = shape.period
        r = self._margin(s, p)
        windows = [(0, r)] + [(max(0, lo - r), hi + r + 1) for lo, hi in shape.breaks]
        kept = _kept_iterations(windows, trips, p)
        if self._lengthen(s, p, _shortest_stretch(kept, trips, shape.breaks)):
            r += p
            windows = [(0, r)] + [(max(0, lo - r), hi + r + 1) for lo, hi in shape.breaks]
            kept = _kept_iterations(windows, trips, p)
        if len(kept) == trips:
            for k in range(trips):
                self._iteration(s, start + k * step, k)
            self.runs.append(LoopRun(s, trips, p, trips, 0))
            return
        self._note_irregular(s, shape)
        self._period[id(s)] = p
        saved = self.forced
        self.forced = saved | shape.irregular
        for n, k in enumerate(kept):
            self._iteration(s, start + k * step, n)
        self.forced = saved
        self.runs.append(LoopRun(s, trips, p, len(kept), trips - len(kept)))

    def _open_loop(self, s: ir.For, start: int, step: int) -> None:
        """Unknown trip count: every iteration boundary may be the last."""
        shape = self._analyse(s, start, step)
        self._note_irregular(s, shape)
        p = shape.period
        h = self._open_margin(s, p) + max([hi + 1 for _, hi in shape.breaks], default=0) + p - 1
        self._period[id(s)] = p
        saved = self.forced
        self.forced = saved | shape.irregular
        self._run_open(s, h, lambda k: start + k * step, None, self._bound(s))
        self.forced = saved
        self.runs.append(LoopRun(s, None, p, h, 0))

    def _run_open(self, s: ir.For, h: int, value_of, rep_of, bound: bound_facts.LoopBound | None = None) -> None:
        """Up to h iterations; before each one (and after the last) the loop may end: an "exit"
        item keeps the state there as one of the ends the join after the loop merges. With a
        `bound`, the loop's condition held in each iteration that runs. The iteration the trace
        runs as the k-th stands for the k-th or a later one (left-out periods only move a run's
        iterations to higher counts), whose variable is at least as far along: the condition at
        the k-th value is implied by the real one, so what it says holds in every run there."""
        fid = next(self._fork_ids)
        self._control("fork", fid)
        entry_ctx = self.ctx
        ends, flag_ends = [], []
        for k in range(h):
            self._control("exit", fid)
            ends.append(dict(self.env))
            flag_ends.append(self._flag_state())
            ctx = next(self._ctx_ids)
            self.ctx_parent[ctx] = self.ctx
            self.ctx = ctx
            if rep_of is not None:
                self.gm_rep[s.var] = rep_of(k)
            known = self.known
            if bound is not None:
                self.known = bound_facts.narrow(known, bound, value_of(k))
            try:
                self._iteration(s, value_of(k), k)
            finally:
                self.known = known
        self._control("join", fid)
        self._join_flag_states([*flag_ends, self._flag_state()])
        self.ctx = entry_ctx
        merged = dict(self.env)
        for other in ends:
            for key in set(merged) | set(other):
                merged[key] = join(merged.get(key, UNKNOWN), other.get(key, UNKNOWN))
        self.env = merged
        self._env_copy = None

    def _residue_loop(self, s: ir.For, start, step) -> None:
        """Unknown start or step (grid-stride loops): residues modulo the slot period."""
        m = _modulus_of(s)
        shape = self._analyse(s, 0, 1)
        self._note_irregular(s, shape)
        p = periodic.lcm(shape.period, m)
        h = self._open_margin(s, p) + max([hi + 1 for _, hi in shape.breaks], default=0) + p - 1
        starts = _residues(start, m)
        steps = _residues(step, m)
        step_rep = step if is_known(step) else 1
        start_rep = start if is_known(start) else 0
        if len(starts) * len(steps) > MAX_RESIDUE_FORKS:
            starts, steps, m = [0], [0], 1
        saved = self.forced
        self.forced = saved | shape.irregular

        def alternative(a: int, b: int):
            def run() -> None:
                value = (lambda k: Residue.of(a + k * b, m)) if m > 1 else (lambda k: UNKNOWN)
                self._run_open(s, h, value, lambda k: start_rep + k * step_rep)
            return run

        self.fork([alternative(a, b) for a in starts for b in steps])
        self.forced = saved
        self.runs.append(LoopRun(s, None, p, h, 0))

    # ------------------------------------------------------------------ instructions

    def instr(self, s: ir.Instr) -> None:
        self.count()
        scalars = [self.eval(a.value, s) for a in s.args if a.kind == "scalar"] if s.op in WINDOWED else []
        tiles: list[list[TileOperand]] = [self._tile_operands(a, s) for a in s.args if a.kind == "tile"]
        # The tile accesses are a function of the operands' places and shapes: shared by every
        # instance that sees the same ones.
        # Operand lists are shared objects, one per place and shape (widened aliases get new ones).
        key = (id(s), tuple(scalars), tuple(map(id, tiles)))
        tile_accesses = self._tile_accesses.get(key)
        if tile_accesses is None:
            tile_accesses = self._tile_accesses[key] = self._tile_access_list(s, tiles, scalars)
        tile_accesses, barrier_inside = tile_accesses
        accesses = list(tile_accesses)
        if self.cluster is not None and self.cluster.is_cross_op(s) and not self.cluster.stalls_the_core(s):
            # A cross-core flag: it writes what the cores share (analysis.cluster_view).
            accesses += [Access(fp, True, what) for fp, what in self.cluster.cross_accesses(s)]
            for t in self.cluster.entry_tiles:  # the entries another core's TMPipe writes
                for k in range(t.slots):
                    p = self._place(t, k)
                    accesses.append(Access(single(p.buffer, p.address, p.address + t.nbytes), True,
                                           f"the FIFO entries {t.cpp_name or t.name}"))
        clip = tiles[0][0].valid if (s.op in CLIPPED_GM and tiles) else None
        for a in s.args:
            if a.kind != "gm":
                continue
            g = a.value.tensor
            if g.param not in self.gm.written:
                continue  # nothing writes it: no dependence through it
            fp = self._gm_fp(g, clip, s)
            if fp is None:
                continue
            if a.reads:
                accesses.append(Access(fp, False, a.text))
            if a.writes:
                accesses.append(Access(fp, True, a.text))
        handshake = self.unit_flags is not None and s.pipe in ("M", "FIX")
        if handshake:
            l0c = [(a.write, (a.footprint.lo, a.footprint.hi)) for a in accesses if a.footprint.space == "L0C"]
            writes, reads = [r for w, r in l0c if w], [r for w, r in l0c if not w]
            self._handshake(self.unit_flags.before(s.pipe, s.template_args, writes, reads))
        op = Op(self._next_pos(), s.pipe, s, tuple(accesses), tuple(self.iters), self.ctx,
                barrier_inside=barrier_inside)
        self.items.append(op)
        self.ops.append(op)
        if handshake:
            self._handshake(self.unit_flags.after(s.pipe, s.template_args, writes, reads))
        if s.uid in self._meets:
            apart = self._apart(s)
            if apart:
                self.apart[op.pos] = apart

    # ------------------------------------------------------------------ L0C unit flags

    def _handshake(self, steps) -> None:
        for kind, src, dst, event in steps:
            self.handshakes.append((self._next_pos(), kind, src, dst, event))

    def _flag_state(self) -> dict | None:
        return dict(self.unit_flags.regions) if self.unit_flags is not None else None

    def _set_flag_state(self, regions: dict | None) -> None:
        if self.unit_flags is not None:
            self.unit_flags.regions = dict(regions)

    def _join_flag_states(self, ends: list) -> None:
        """After a join a region keeps its state when every path left it so; one the paths
        disagree on is forgotten (no later step waits for it: fewer orderings, never more; a
        signal some path left pending stays so, ordering nothing)."""
        if self.unit_flags is None:
            return
        first = ends[0]
        self.unit_flags.regions = {r: st for r, st in first.items() if all(e.get(r) == st for e in ends[1:])}

    def _finish_handshakes(self) -> list[tuple[int, str, str, str, int]]:
        if self.unit_flags is not None:
            self._handshake(self.unit_flags.finish())
        return self.handshakes

    def _apart(self, s: ir.Instr) -> frozenset[int]:
        """The "may" partners (outside the loop, see GmPairs.meets) this instance of `s` cannot
        meet. The iteration stands for itself when its loop runs every iteration, and otherwise
        for the iterations whole periods of the loop away (the ones left out): it meets a partner
        if any of those is a value at which the windows meet."""
        out = set()
        for partner, loop, values in self._meets[s.uid]:
            v = self.env.get(loop.var)
            if id(loop) not in self._period or not isinstance(v, int) or isinstance(v, bool):
                continue
            period = self._period[id(loop)]
            if period is None:
                meets = v in values
            else:
                apart = period * self.eval(loop.step, loop)
                meets = any((v - m) % apart == 0 for m in values)
            if not meets:
                out.add(partner)
        return frozenset(out)

    def _tile_access_list(self, s: ir.Instr, tiles: list[list[TileOperand]],
                          scalars: list) -> tuple[list[Access], bool]:
        """The tile accesses, and whether the op issues a barrier of its pipe inside (the early
        accesses come before it: `execution.mark_barrier_inside`, as in `check`)."""
        out: list[Access] = []
        window = self._window(s, tiles, scalars)
        valids = None
        for i, ops in enumerate(tiles):
            for o in ops:
                if is_scratch(i, o.access):
                    if valids is None:  # the largest valid shape of each operand over its slots
                        valids = [(max(t.valid[0] for t in x), max(t.valid[1] for t in x)) for x in tiles]
                    fp = self.scratch_footprint(s, o, i, valids)
                    wide = self.widened.get((id(o.decl), o.slot))
                    if wide is not None:  # an alias of unknown place: anywhere in its base, and the reach
                        fp = single(fp.space, wide.lo, max(wide.hi, fp.hi))
                else:
                    fp = self._tile_fp(o, window if window and i == window[0] else None, s)
                if fp is None:
                    continue
                if "r" in o.access:
                    out.append(Access(fp, False, o.text))
                if "w" in o.access:
                    out.append(Access(fp, True, o.text))
        hidden = self._scratch is not None and uses_hidden_scratch(s.op, [ops[0].access for ops in tiles if ops])
        if hidden:
            out.append(Access(self._scratch, True, "the hidden UB scratch"))
        if all(tiles):  # the operands of one argument share their declaration and valid shape
            return mark_barrier_inside(s.op, self.arch.name, [ops[0] for ops in tiles], out,
                                       self._scratch if hidden else None)
        return out, False

    def _tile_operands(self, a: ir.Arg, s: ir.Instr) -> list[TileOperand]:
        fixed = self._fixed_operands.get(id(a))
        if fixed is not None:
            return fixed
        ref: ir.TileRef = a.value
        decl = ref.tile
        shape = self._constant_shape(decl) if decl.alias is None else None
        if shape is not None and ref.index is None:
            # One tile, its own place, a constant valid shape: the same operand every time.
            fixed = self._fixed_operands[id(a)] = [TileOperand(decl, 0, self._place(decl, 0), shape, a.access,
                                                               a.text)]
            return fixed
        if shape is not None:
            # An element of a tile array at its own place, a constant valid shape: one operand list per slot.
            slots = self._slots(ref, s)
            key = (id(a), slots[0] if len(slots) == 1 else tuple(slots))
            got = self._operands.get(key)
            if got is None:
                got = self._operands[key] = [TileOperand(decl, slot, self._place(decl, slot), shape, a.access, a.text)
                                             for slot in slots]
            return got
        vr = decl.rows if decl.valid_rows is None else self.eval(decl.valid_rows, s)
        vc = decl.cols if decl.valid_cols is None else self.eval(decl.valid_cols, s)
        known = is_known(vc)  # the full width stands for a width not known (`vector_barrier_inside`)
        vr = int(vr) if is_known(vr) else decl.rows
        vc = int(vc) if known else decl.cols
        slots = self._slots(ref, s)
        key = (id(a), vr, vc, known, tuple(slots),
               tuple((self.places.get((id(decl), k)), (id(decl), k) in self.widened) for k in slots))
        got = self._operands.get(key)
        if got is None:
            vr, vc = max(0, min(vr, decl.rows)), max(0, min(vc, decl.cols))
            got = self._operands[key] = [TileOperand(decl, slot, self._place(ref.tile, slot), (vr, vc), a.access,
                                                     a.text, known) for slot in slots]
        return got

    def _constant_shape(self, decl: ir.TileDecl) -> tuple[int, int] | None:
        """The valid shape of a tile when it depends on no value (most tiles: their declared
        shape), clamped as below; None when it must be evaluated where the tile is used."""
        got = self._constant_shapes.get(id(decl), False)
        if got is False:
            got = None
            dims = []
            for e, full in ((decl.valid_rows, decl.rows), (decl.valid_cols, decl.cols)):
                if e is None:
                    dims.append(full)
                    continue
                try:
                    v = None if e.free_vars() else evaluate(e, {})
                except Exception:  # noqa: BLE001 - evaluated where used, which reports it
                    v = None
                if v is None or not is_known(v) or isinstance(v, bool) or not isinstance(v, (int, float)):
                    break
                dims.append(max(0, min(int(v), full)))
            else:
                got = (dims[0], dims[1])
            self._constant_shapes[id(decl)] = got
        return got

    def _slots(self, ref: ir.TileRef, stmt) -> list[int]:
        if ref.index is None:
            return [0]
        i = self.eval(ref.index, stmt)
        if not is_known(i):
            return list(range(ref.tile.slots))  # any slot
        if not isinstance(i, int) or not 0 <= i < ref.tile.slots:
            raise located(f"index {i} of '{ref.tile.cpp_name or ref.tile.name}' is outside 0..{ref.tile.slots - 1}",
                          stmt)
        return [i]

    def _place(self, decl: ir.TileDecl, slot: int) -> Place:
        key = (id(decl), slot)
        p = self.places.get(key)
        if p is None and self.cluster is not None and id(decl) in self.cluster.slot_places:
            # A FIFO slot tile planned slot by slot: the pipe's address of that local slot.
            p = self.places[key] = Place(TILE_TYPE_BUFFER[decl.tile_type], self.cluster.slot_places[id(decl)][slot])
        if p is None and self.cluster is not None and id(decl) in self.cluster.slot_tiles:
            ring = self.cluster.slot_tiles[id(decl)]  # a FIFO slot: the whole ring (or another core's)
            p = self.places[key] = Place(TILE_TYPE_BUFFER[decl.tile_type], ring.lo if ring is not None else 0)
        if p is None:
            p = self.places[key] = Place(TILE_TYPE_BUFFER[decl.tile_type], self.placement(decl, slot))
        return p

    def alias(self, s: ir.AliasDef) -> None:
        bases = [(slot, self._place(s.src.tile, slot)) for slot in self._slots(s.src, s)]
        off = self.eval(s.offset_bytes, s)
        dst_slots = self._slots(s.dst, s)
        if len(bases) == 1 and is_known(off) and len(dst_slots) == 1:
            base = bases[0][1]
            key = (id(s.dst.tile), dst_slots[0])
            self.places[key] = Place(base.buffer, base.address + int(off))
            self.widened.pop(key, None)
            return
        # Where the alias points is not known: it stands for the whole of its base's slots.
        lo = min(p.address for _, p in bases)
        hi = max(p.address for _, p in bases) + s.src.tile.nbytes
        for slot in dst_slots:
            self.places[(id(s.dst.tile), slot)] = Place(bases[0][1].buffer, lo)
            self.widened[(id(s.dst.tile), slot)] = single(bases[0][1].buffer, lo, hi)

    def _window(self, s: ir.Instr, tiles: list[list[TileOperand]], scalars: list):
        """(index of the windowed tile operand, window) for TEXTRACT / TINSERT with known offsets."""
        tiles = [t for t in tiles if not (t and t[0].decl.tile_type == "Scaling")]  # the fixpipe's parameters
        if s.op not in WINDOWED or len(tiles) != 2:  # the two-window TEXTRACT reads its source whole
            return None
        if not all(is_known(v) for v in window_position(scalars)):
            return None  # unknown offsets: the whole tile
        nums = [v for v in scalars if isinstance(v, (int, float)) and not isinstance(v, bool)]
        big, shaper = WINDOWED[s.op]
        r0, c0 = (list(map(int, window_position(nums))) + [0, 0])[:2]
        vr, vc = tiles[big][0].valid
        h, w = tiles[shaper][0].valid
        return big, (r0, c0, max(0, min(h, vr - r0)), max(0, min(w, vc - c0)))

    def _tile_fp(self, o: TileOperand, window, s) -> Footprint | None:
        if self.cluster is not None and id(o.decl) in self.cluster.slot_tiles and \
                id(o.decl) not in self.cluster.slot_places:
            return self.cluster.slot_tiles[id(o.decl)]
        wide = self.widened.get((id(o.decl), o.slot))
        if wide is not None:
            return wide
        return self.tile_footprint(o, window[1] if window else None, s)

    def _slot_env(self, g: ir.GmTensor) -> dict | None:
        """The values that pin down a FIFO slot in GM (the pipe's counter modulo SlotNum: not
        affine), when this instance pins it: every variable of the offset a counter the FIFO
        lowering made, known here, or known modulo a multiple of each modulus it is taken by; a
        constant extent."""
        if gm_extent(g) is None or not all("." in v for v in g.offset_bytes.free_vars()):
            return None  # only the FIFO lowering's counters ('.' in the name) are looked at
        env = {}
        for name in g.offset_bytes.free_vars():
            v = self.env.get(name, UNKNOWN)
            if isinstance(v, Residue) and _only_modulo(g.offset_bytes, name, v.modulus):
                v = v.value
            elif not is_known(v) or not isinstance(v, int):
                return None
            env[name] = v
        return env

    def _gm_fp(self, g: ir.GmTensor, clip, s) -> Footprint | None:
        space = "GM:" + g.param
        exact = self._exact_gm.get(id(g))
        if exact is None:
            exact = self._exact_gm[id(g)] = exact_address(g)
        if not exact:
            env = self._slot_env(g)
            if env is None:
                return single(space, 0, WHOLE)
        else:
            env = {}
            for name in g.offset_bytes.free_vars() | {n for x in g.shape + g.stride for n in x.free_vars()}:
                v = self.env.get(name, UNKNOWN)
                if isinstance(v, Residue) or not is_known(v):
                    v = self.gm_rep.get(name, 0)
                env[name] = v
        try:
            off = evaluate(g.offset_bytes, env)
            shape = tuple(int(evaluate(x, env)) for x in g.shape)
            stride = tuple(int(evaluate(x, env)) for x in g.stride)
        except (UnboundValue, TypeError, ValueError):
            return single(space, 0, WHOLE)
        if not isinstance(off, int):
            return single(space, 0, WHOLE)
        return self.gm_footprint(GmOperand(g, g.param, off + (1 << 40), shape, stride, "", ""), clip)


def _only_modulo(e: Expr, name: str, modulus: int) -> bool:
    """`name` occurs in `e` only as `name % m` (or `(name + c) % m`, c constant) with m dividing
    `modulus`: then any value of the class `name` is known modulo `modulus` gives `e` one value
    (a FIFO slot in GM, `counter % SlotNum`)."""
    if name not in e.free_vars():
        return True
    if not isinstance(e, BinOp):
        return False  # the variable itself, or inside a form not looked into
    if e.op == "%" and isinstance(e.rhs, Const) and isinstance(e.rhs.value, int) and e.rhs.value > 0 and \
            name in e.lhs.free_vars():
        lhs = e.lhs
        if isinstance(lhs, BinOp) and lhs.op in "+-" and isinstance(lhs.rhs, Const) and isinstance(lhs.rhs.value, int):
            lhs = lhs.lhs
        return isinstance(lhs, Var) and lhs.name == name and modulus % e.rhs.value == 0
    return _only_modulo(e.lhs, name, modulus) and _only_modulo(e.rhs, name, modulus)


def _assigns(s: ir.Stmt) -> set[str]:
    """The scalar variables statement `s` itself (not the statements in it) sets."""
    if isinstance(s, ir.Assign):
        return {s.var}
    if isinstance(s, ir.For):
        return {s.var}
    return set()


def _nothing() -> None:
    return None


def _trips(start: int, stop, step: int, inclusive: bool) -> int | None:
    if not isinstance(stop, (int, float)) or isinstance(stop, bool):
        return None
    return ir.For("", Const(start), Const(stop), Const(step), ir.Block([]), None, inclusive).trip_count()


def _kept_iterations(windows: list[tuple[int, int]], trips: int, period: int) -> list[int]:
    """Iterations in the windows; between windows, the remainder of the gap modulo the period
    (so the iterations left out are whole periods)."""
    marks = sorted((max(0, a), min(trips, b)) for a, b in windows if a < trips)
    merged: list[list[int]] = []
    for a, b in marks:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    kept: list[int] = []
    at = 0
    for a, b in merged + [[trips, trips]]:
        gap = a - at
        if gap > 0:
            keep = gap % period if gap >= period else gap
            kept.extend(range(at, at + keep))
        kept.extend(range(a, b))
        at = b
    return kept


def _shortest_stretch(kept: list[int], trips: int, breaks) -> int | None:
    """The fewest kept regular iterations (outside every breakpoint interval) in a stretch between
    breakpoints or the loop's ends from which iterations are left out; None if none is left out."""
    shortest = None
    run, gap, prev = 0, False, None
    for k in kept:
        if prev is not None and k > prev + 1:
            gap = True
        if any(lo <= k <= hi for lo, hi in breaks):
            if gap:
                shortest = run if shortest is None else min(shortest, run)
            run, gap = 0, False
        else:
            run += 1
        prev = k
    if kept and kept[-1] < trips - 1:
        gap = True
    if gap:
        shortest = run if shortest is None else min(shortest, run)
    return shortest


def _modulus_of(loop: ir.For) -> int:
    """The least common multiple of N over `x % N` in the body whose x uses the loop variable."""
    m = 1

    def scan(e: Expr) -> None:
        nonlocal m
        if isinstance(e, BinOp):
            if e.op == "%" and isinstance(e.rhs, Const) and isinstance(e.rhs.value, int) and e.rhs.value > 0 \
                    and loop.var in e.lhs.free_vars():
                m = periodic.lcm(m, e.rhs.value)
            scan(e.lhs)
            scan(e.rhs)
        elif hasattr(e, "operand"):
            scan(e.operand)
        elif hasattr(e, "cond"):
            scan(e.cond)
            scan(e.then)
            scan(e.other)

    seen: set[int] = set()
    for s in ir.walk(loop.body):
        for e, _ in periodic.behaviour(s, seen):
            scan(e)
    return m


def _residues(v, m: int) -> list[int]:
    if m <= 1:
        return [0]
    if isinstance(v, Residue) and v.modulus % m == 0:
        return [v.value % m]
    if is_known(v) and isinstance(v, int):
        return [v % m]
    return list(range(m))


def bounded_trace(kernel: ir.Kernel, arch: ArchProfile, placement: Placement, extra: int = 0,
                  gm: GmPairs | None = None, check: bool = False, decisions: bool = True) -> BoundedTrace:
    """The kernel's executions for every runtime value, bounded (see module doc); `check`: a
    checking trace; `decisions=False`: every test of a condition forks on its own, as if it were
    independent of the others (a superset of the runs)."""
    gm = gm or classify(kernel)
    try:
        return BoundedMachine(kernel, arch, placement, gm, extra, check, decisions).run()
    except RecursionError:  # pragma: no cover - deeply nested forks
        raise PtoError("the kernel's control flow is nested too deeply to analyse", kernel.body.loc) from None



def _deepest_nest(s: ir.Stmt) -> tuple[int, ir.For | None]:
    """(loops in the deepest nest under s, its outermost loop)."""
    if isinstance(s, ir.For):
        return 1 + _deepest_nest(s.body)[0], s
    kids = s.stmts if isinstance(s, ir.Block) else [s.then, *([s.other] if s.other else [])] if isinstance(s, ir.If) else []
    return max((_deepest_nest(k) for k in kids), key=lambda x: x[0], default=(0, None))
