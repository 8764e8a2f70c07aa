"""Sync insertion: the set_flag / wait_flag / pipe_barrier that correctness needs, no more.

1. The kernel runs as one bounded trace that stands for every runtime value and trip count
   (`analysis.bounded`): runtime conditions take both branches, runtime loops may stop after
   any iteration, long loops run their first and last iterations and a window around every
   breakpoint, leaving out whole periods. Dependences are exact per instance on that trace
   (`analysis.deps`); GM ones follow an address dependence test (`analysis.gm_pairs`).
2. Each cross-pipe dependence not yet ordered gets one flag, placed as a hand-written kernel
   does (`sync_model.candidates`): forward, buffer free (reverse, primed and drained),
   per-slot event ids, or produced one iteration ahead; before a new flag, an existing one is
   widened (set later, wait earlier) to serve both. Whether a dependence is already ordered is
   decided by happens-before on the trace (`analysis.hb.order_events`), so ordering implied
   through other pipes or earlier iterations is used. A flag reused across iterations must be
   set again only after its previous wait ran; where nothing guarantees that, a "credit" flag
   in the other direction is added.
3. Every flag whose removal leaves all dependences ordered is removed again.
4. Same-pipe dependences the architecture does not order get a pipe_barrier before the
   consumer unless flags, other barriers or the barriers instructions issue themselves
   (`execution.mark_barrier_inside`, as `check` counts them) already order them; redundant
   barriers are removed.
5. The copies of a helper's statements (a helper inlined at several call sites) are given one
   text where the checked plan allows it (`helper_copies`); then a credit the whole plan does
   not need is taken out, what it alone ordered getting flags of its own (`own_flags`), and the
   copies are made one text again. Event ids 0..7 are allocated per
   pipe pair (`sync_ids`); when a pair runs out it is
   planned again with one id per sync, and as a last resort a dependence is ordered by
   pipe_barrier(PIPE_ALL), with a warning.
6. The plan is checked on a trace that stands for every run: every stretch from which
   iterations are left out keeps 2P + D - 1 regular iterations (one more period where the
   planning trace keeps fewer; the planning trace itself where it keeps enough). If the plan
   fails there, planning starts again with one more period in every margin.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, replace

from ptorewrite.analysis import ir
from ptorewrite.analysis.abstract import evaluate, is_known
from ptorewrite.analysis.deps import Edge, dependence_graph
from ptorewrite.analysis.execution import Placement
from ptorewrite.analysis.expr import cpp_text
from ptorewrite.analysis.gm_pairs import classify
from ptorewrite.analysis.hb import Ordering
from ptorewrite.arch import NUM_EVENT_IDS, ArchProfile
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.transform.edits import Insertion
from ptorewrite.transform.helper_copies import barriers_in_every_copy, harmonize
from ptorewrite.transform.sync_check import BarrierCover, PlanTrace
from ptorewrite.transform.sync_emit import conservative_insertions, emit
from ptorewrite.transform.sync_ids import EventsExhausted, allocate_events
from ptorewrite.transform.sync_model import (
    SHIFTED_PARAMS,
    BadEventId,
    PlannedSync,
    Tree,
    barrier_candidate,
    candidates,
    credit_candidates,
    inside_guards,
    rider_candidate,
)

VIRTUAL_BASE = 1000  # provisional event ids while planning; real ids are allocated at the end
MAX_EXTRA_PERIODS = 4  # settling rounds before giving up

__all__ = ["PlannedSync", "SyncPlan", "conservative_insertions", "pipe_graph", "plan_syncs", "sync_insertions"]


@dataclass
class SyncPlan:
    syncs: list[PlannedSync]
    edges: list[Edge]
    extra: int = 0  # periods added to every loop's margin before the plan settled
    shifted_params: bool = True  # sync_model.SHIFTED_PARAMS while it was planned
    # The statements the traces it was planned and checked on run (ids), for every run the user
    # can give: a helper's copy of a statement outside it never runs (a branch its call never
    # takes) and needs no particular lines. None: not known, every copy counts.
    ran: frozenset[int] | None = None


def _key(e: Edge) -> tuple:
    return (e.src.uid, e.dst.uid, id(e.carrier) if e.carrier is not None else None)


class _Planner:
    def __init__(self, pt: PlanTrace, tree: Tree, one_id: set[tuple[str, str]], full: dict[tuple, str]):
        self.pt = pt
        self.tree = tree
        self.one_id = one_id  # pipe pairs limited to one id per sync
        self.full = full  # dependences ordered by pipe_barrier(PIPE_ALL): edge key -> reason
        self.next_event = VIRTUAL_BASE
        self.warnings: list[tuple[str, object]] = []
        self._instrs: dict[str, list[ir.Instr]] = {}
        self._all = list(pt.kernel.instructions())
        for x in self._all:
            self._instrs.setdefault(x.pipe, []).append(x)

    # ------------------------------------------------------------------ checks

    def order(self, syncs: list[PlannedSync]) -> Ordering | None:
        try:
            return self.pt.order(syncs)
        except BadEventId:
            return None

    def _ahead_ok(self, s: PlannedSync) -> bool:
        """The producer's slot one iteration back is the consumer's slot, wherever the wait runs."""
        loop = s.ahead
        step = loop.step.eval({}) if loop.counted and not loop.step.free_vars() else None
        if step is None:
            return False
        start = loop.start.eval({}) if not loop.start.free_vars() else None
        for m in self.pt.trace.markers.get((id(s.wait_at), "before"), ()):
            env = m.env
            if loop.var not in env or not is_known(env[loop.var]):
                return False
            if env[loop.var] == start:
                continue  # the first iteration's slot is primed
            back = {**env, loop.var: env[loop.var] - step}
            a, b = evaluate(s.wait_slot, env, m.forced), evaluate(s.slot, back, m.forced)
            if not (is_known(a) and is_known(b) and a == b):
                return False
        return True

    def _last_use(self, e: Edge, loop: ir.For, first: bool = False) -> int | None:
        """The value of `loop`'s variable in the last iteration whose instance of `e`'s producer
        some consumer depends on, over every run of `loop` (`first`: the first iteration whose
        instance of `e`'s consumer depends on some producer); None unless every run of it in the
        trace ran all its iterations (the ordinal of an iteration is then its index)."""
        runs = [r for r in self.pt.trace.runs if r.loop is loop]
        if not runs or any(r.removed or r.trips is None for r in runs):
            return None
        end = (lambda d: d.dst) if first else (lambda d: d.src)
        ordinals = [k for d in e.instances for lid, k in end(d).iters if lid == id(loop)]
        if not ordinals:
            return None
        return int(loop.start.eval({})) + (min(ordinals) if first else max(ordinals)) * int(loop.step.eval({}))

    # ------------------------------------------------------------------ flags

    def flags(self) -> list[PlannedSync]:
        """Flags for every cross-pipe dependence. Unsafe reuse of an id is first left for credits
        added at the end (flags placed later often make it safe); when that fails, the flags are
        planned again requiring every step to be safe at once (with its own credit if needed)."""
        try:
            return self._ride_lanes(self._flags(strict=False))
        except EventsExhausted:
            self.next_event = VIRTUAL_BASE
            self.warnings = []
            return self._ride_lanes(self._flags(strict=True))

    def own_flags(self, syncs: list[PlannedSync]) -> list[PlannedSync]:
        """A credit is added while an id's reuse is unsafe, and may then order data dependences
        that later flags leave to it. Where the finished plan keeps every reuse safe without it,
        those dependences get flags of their own instead (no more syncs than before): a credit
        makes a third pipe wait for the reuse, while their own flags wait only where the data is."""
        for c in [s for s in syncs if s.credit]:
            trial = [s for s in syncs if s is not c]
            order = self.order(trial)
            if order is None or order.flag_problems:
                continue
            for e in sorted(self.pt.unordered(order, self.pt.cross), key=self._edge_order):
                if trial is None or self.pt.ordered(order, e):
                    continue
                got = self._place(trial, order, e, strict=True)
                trial, order = got if got is not None else (None, None)
            if trial is not None and len(trial) <= len(syncs) and not self.pt.unordered(order, self.pt.cross):
                syncs = trial
        return syncs

    def _one_text(self, f: PlannedSync) -> bool:
        """Whether an end of `f` is text that several copies share (inside an inlined helper's
        body, or a MultiBuffered body lowered once per phase): `helper_copies` settles those."""
        return any(isinstance(b, ir.Block) and b.inlined or isinstance(b, ir.For) and b.phase is not None
                   for x in (f.set_at, f.wait_at) if x is not None for b in self.tree.chain(x)[1:])

    def _lanes(self, f: PlannedSync) -> bool:
        """A per-lane reverse flag of a loop of its own: primed before it, drained after it."""
        return f.kind == "flag" and f.reverse_loop is not None and f.slots > 1 and f.prime_at is not None \
            and f.drain_at is None and f.wait_slot is None and f.set_guard is None and f.wait_guard is None \
            and not f.counted and f.ahead is None and not f.companions and f.rides is None

    def _chain_lanes(self, syncs: list[PlannedSync]) -> list[PlannedSync]:
        """Per-lane reverse flags of loops that run one after another over the same lanes (a tile
        declared in each loop's body, both placed on the same copies) as one chain on one id per
        lane, as `helper_copies` chains a helper's copies: the earlier flag's prime stays, its
        drain moves after the later loop, the later flag loses both, and each lane's first wait
        in the later loop takes the signal the earlier loop left pending after that lane's last
        reader. Before, the drain after the earlier loop waited for every lane's last reader
        before the later loop's first load. Balanced for every trip count of either loop: each
        iteration waits on and sets its lane's id once, and the one prime and drain bracket
        both loops. Kept where the plan still checks."""
        for later in list(syncs):
            if not self._lanes(later) or later not in syncs:
                continue
            if self._one_text(later):
                continue
            for first in syncs:
                if first is later or not self._lanes(first) or self._one_text(first) or (first.src, first.dst, first.slots) != \
                        (later.src, later.dst, later.slots) or \
                        self.tree.order[id(first.prime_at)] >= self.tree.order[id(later.prime_at)] or \
                        any(x is first.prime_at for x in self.tree.chain(later.prime_at)):
                    continue
                chained = replace(first, drain_at=later.prime_at)
                rider = replace(later, event=first.event, prime_at=None, rides=chained)
                trial = [chained if s is first else rider if s is later else s for s in syncs]
                o = self.order(trial)
                if o is not None and not o.flag_problems and not self.pt.unordered(o, self.pt.cross):
                    syncs = trial
                    break
        return syncs

    def _copy_in(self, syncs: list[PlannedSync], lanes: PlannedSync, later: ir.Stmt) -> bool:
        """Whether another copy of `lanes`'s lines (a helper's flag) lies in `later`: the helper's
        copies then chain as one text (`helper_copies`), which waits in the later loop would
        split."""
        return any(g is not lanes and _same_text(g, lanes) and
                   any(x is later for x in self.tree.chain(g.wait_at)) for g in syncs)

    def _ride_lanes(self, syncs: list[PlannedSync]) -> list[PlannedSync]:
        """A one-id flag that orders an earlier loop's per-lane reader before a later loop's
        loads (set after the earlier loop, waited before the later one) is replaced by waits on
        the earlier loop's own lane ids in the later loop (`rider_candidate`), the earlier flag
        drained after the later loop, where the plan still checks: the later loop's first load of
        a lane no longer waits for the other lane's last reader."""
        syncs = self._chain_lanes(syncs)
        for one in list(syncs):
            if one.kind != "flag" or one.reverse_loop is not None or one.slots != 1 or one.prime_at is not None \
                    or one.set_guard is not None or one.wait_guard is not None or one.counted or one.companions \
                    or one.ahead is not None or one.edge is None or self._one_text(one):
                continue
            for lanes in syncs:
                if lanes.kind != "flag" or lanes.reverse_loop is None or lanes.slots < 2 or lanes.prime_at is None \
                        or (lanes.src, lanes.dst) != (one.src, one.dst) or lanes.wait_slot is not None \
                        or lanes.set_guard is not None or lanes.wait_guard is not None or lanes.counted \
                        or lanes.ahead is not None or lanes.companions or lanes.rides is not None \
                        or not any(x is lanes.reverse_loop for x in self.tree.chain(one.edge.src)):
                    continue
                later = self.tree.child_of(self.tree.common_block(lanes.reverse_loop, one.edge.dst), one.edge.dst)
                if self._copy_in(syncs, lanes, later):
                    continue
                drained = lanes
                if self.tree.order[id(lanes.drain_stmt)] < self.tree.order[id(later)] and \
                        not any(x is lanes.drain_stmt for x in self.tree.chain(later)):
                    drained = replace(lanes, drain_at=later)
                rider = rider_candidate(self.tree, drained, one.edge)
                if rider is None or self._one_text(rider):
                    continue
                trial = [drained if s is lanes else s for s in syncs if s is not one] + [rider]
                o = self.order(trial)
                if o is not None and not o.flag_problems and not self.pt.unordered(o, self.pt.cross):
                    syncs = trial
                    break
        # The earlier flag's own drain right after its loop, or the prime of a later loop's flag
        # on the same pipes right before that loop, may be what orders the later loop's loads
        # (each waits for every lane's last reader): the drain moves after the later loop, that
        # prime before the earlier loop (its drain stays), and the later loop's first loads
        # wait on their lanes instead.
        for lanes in list(syncs):
            if not self._lanes(lanes) or lanes not in syncs or lanes.drain_stmt is not lanes.reverse_loop:
                continue  # (primed and drained around an outer statement: the drain is not between the loops)
            loop = lanes.reverse_loop
            block = self.tree.parent.get(id(lanes.drain_stmt))
            if not isinstance(block, ir.Block):
                continue
            stmts = block.stmts
            at = next((i for i, x in enumerate(stmts) if x is lanes.drain_stmt), None)
            for later in stmts[at + 1:] if at is not None else []:
                if not isinstance(later, ir.For) and not any(isinstance(x, ir.For) for x in ir.walk(later)):
                    continue
                if self._copy_in(syncs, lanes, later):
                    break
                moved = replace(lanes, drain_at=later)
                hoisted = {id(g): replace(g, prime_at=lanes.prime_at, drain_at=later) for g in syncs
                           if g.kind == "flag" and g.prime_at is later and g.drain_at is None and g.ahead is None
                           and (g.src, g.dst) == (lanes.src, lanes.dst)}
                trial = [moved if s is lanes else hoisted.get(id(s), s) for s in syncs]
                o = self.order(trial)
                if o is None:
                    break
                riders: dict[int, PlannedSync] = {}
                for e in self.pt.unordered(o, self.pt.cross):
                    rider = rider_candidate(self.tree, moved, e) \
                        if any(x is loop for x in self.tree.chain(e.src)) else None
                    if rider is None or self._one_text(rider):
                        riders = {}
                        break
                    riders.setdefault(id(rider.wait_at), rider)
                if riders:
                    trial += list(riders.values())
                    o = self.order(trial)
                    if o is not None and not o.flag_problems and not self.pt.unordered(o, self.pt.cross):
                        syncs = trial
                break
        return syncs

    def _accept(self, syncs: list[PlannedSync], cand: PlannedSync, e: Edge, strict: bool):
        """(new syncs, ordering) with `cand` added (and in strict mode a credit for it), or None."""
        for c in cand.companions:
            c.event = cand.event
        trial = syncs + [cand] + cand.companions
        o = self.order(trial)
        if o is None or not self.pt.ordered(o, e):
            return None
        if not o.flag_problems or (not strict and _fixable(o)):
            return trial, o
        if not strict or not _fixable(o):
            return None
        one = (cand.dst, cand.src) in self.one_id
        credits = credit_candidates(self.tree, cand, one)
        copies = [x for x in syncs if _same_text(x, cand) and x.event == cand.event] if self._in_helper(cand) else []
        for sib in copies:
            credits += credit_candidates(self.tree, cand, one, before=sib) + \
                credit_candidates(self.tree, sib, one, before=cand)
        for credit in credits:
            credit.event = self.next_event + cand.slots
            o2 = self.order(trial + [credit])
            if o2 is not None and not o2.flag_problems:
                self.next_event += credit.slots
                return trial + [credit], o2
        return None

    def _flags(self, strict: bool) -> list[PlannedSync]:
        """In strict mode a dependence whose flags cannot be made safe at once waits until all
        others are placed (they may order it), then gets a flag whose reuse the final repair
        makes safe; a flag even that cannot make safe is replaced by a full barrier, with a
        warning."""
        syncs: list[PlannedSync] = []
        order = self.order(syncs)
        todo = sorted(self.pt.unordered(order, self.pt.cross), key=self._edge_order)
        deferred: list[Edge] = []
        for e in todo:
            if strict and not self.pt.ordered(order, e):
                got = self._place(syncs, order, e, strict=True) if _key(e) not in self.full else None
                if got is None:
                    deferred.append(e)
                else:
                    syncs, order = got
        for e in deferred if strict else todo:
            if self.pt.ordered(order, e):
                continue
            if _key(e) in self.full:
                syncs.append(self._full_barrier(e, self.full[_key(e)]))
                order = self.order(syncs)
                continue
            got = self._place(syncs, order, e, strict=False)
            if got is None:
                self.warnings.append(((f"cannot order {e.kind.upper()} {e.what} ({e.src.op} at {e.src.loc.short} -> "
                                      f"{e.dst.op}) with flags; using pipe_barrier(PIPE_ALL) before it"), e.dst.loc))
                syncs.append(self._full_barrier(e, "fallback"))
                order = self.order(syncs)
            else:
                syncs, order = got
        if strict:
            syncs = self._repair_reuse(self._prune(syncs, tolerate_reuse=True), replace=True)
            # A flag replaced by a full barrier may have ordered more (its drain after the loop):
            # whatever is left unordered gets a full barrier of its own.
            for e in self.pt.unordered(self.order(syncs), self.pt.cross):
                if not self.pt.ordered(self.order(syncs), e):
                    self.warnings.append(((f"cannot order {e.kind.upper()} {e.what} ({e.src.op} at "
                                           f"{e.src.loc.short} -> {e.dst.op}) with flags; using "
                                           "pipe_barrier(PIPE_ALL) before it"), e.dst.loc))
                    syncs = syncs + [self._full_barrier(e, "fallback")]
            return self._prune(syncs)
        # Flags implied by others go first, even while some reuse is unsafe (what they imply is not
        # affected by credits added later); then credits make reuse safe; then what is implied by
        # the credits goes too.
        return self._prune(self._repair_reuse(self._prune(syncs, tolerate_reuse=True)))

    def _place(self, syncs: list[PlannedSync], order: Ordering, e: Edge, strict: bool):
        """(syncs, ordering) with `e` ordered by a widened or a new flag, or None."""
        fresh = candidates(self.tree, e, (e.src.pipe, e.dst.pipe) in self.one_id, self._ahead_ok, self._last_use)
        # First try widening an existing flag (set later, wait earlier) so one pair serves both,
        # as a hand-written kernel does, where that delays no instruction; then a new flag; then
        # a widening that delays one (moves the set past a producer or the wait before a
        # consumer: one id fewer, less overlap), first where ids are scarce.
        scarce = (e.src.pipe, e.dst.pipe) in self.one_id
        merges = list(self._merges(syncs, fresh))
        free = [(i, m) for i, m, costly in merges if not costly or scarce]
        costly = [(i, m) for i, m, c in merges if c and not scarce]
        got = self._widen(syncs, order, e, strict, free)
        if got is not None:
            return got
        for cand in fresh:
            # The same lines at another copy of this source text (a helper inlined at several
            # call sites, an unrolled body) take the same id first: the text is written once, so
            # every copy must agree; the id's reuse between the copies is then made safe like any
            # reuse (credits), and only when it cannot be does the flag take an id of its own.
            shared = [s.event for s in syncs if _same_text(s, cand)][:1] if self._in_helper(cand) else []
            for reuse in [True] * len(shared) + [False]:
                cand.event = shared[0] if reuse else self.next_event
                # A reused id may be made safe by flags placed later; anything else is final.
                got = self._accept(syncs, cand, e, strict)
                if got is not None:
                    if not reuse:
                        self.next_event += cand.slots
                    return got
        return self._widen(syncs, order, e, strict, costly)

    def _in_helper(self, s: PlannedSync) -> bool:
        """Whether both ends of `s` lie in the body of an inlined helper call (whose text other
        call sites share); copies the trace makes of the kernel's own statements do not count."""
        return all(any(isinstance(b, ir.Block) and b.inlined for b in self.tree.chain(x))
                   for x in (s.set_at, s.wait_at) if x is not None)

    def _widen(self, syncs, order: Ordering, e: Edge, strict: bool, merges):
        before = None
        for i, merged in merges:
            trial = syncs[:i] + [merged] + syncs[i + 1:]
            o = self.order(trial)
            if o is None or not self.pt.ordered(o, e) or not (not o.flag_problems if strict else _fixable(o)):
                continue
            if before is None:
                before = {id(x) for x in self.pt.unordered(order, self.pt.cross)}
            if {id(x) for x in self.pt.unordered(o, self.pt.cross)} <= before:
                return trial, o
        return None

    def _full_barrier(self, e: Edge, why: str) -> PlannedSync:
        at = self.tree.child_of(self.tree.common_block(e.src, e.dst), e.dst)
        return PlannedSync("barrier", "ALL", None, None, at, e, reason=f"{e.kind.upper()} {e.what}: {why}")

    def _repair_reuse(self, syncs: list[PlannedSync], replace: bool = False) -> list[PlannedSync]:
        """A flag reused across iterations must not be set again before its previous wait ran:
        order the consumer after that wait before the producer's next set (the hand-written
        reverse flag that returns the "credit"). With `replace`, a flag no credit makes safe is
        replaced by a full barrier before its consumer, with a warning."""
        for _ in range(2 * len(syncs) + 2):
            order = self.order(syncs)
            reuse = [p for p in order.flag_problems if p.kind == "unordered-reuse"]
            if not reuse:
                return syncs
            s, other = reuse[0].first, reuse[0].second
            fixed = False
            one = (s.dst, s.src) in self.one_id
            credits = credit_candidates(self.tree, s, one)
            if isinstance(other, PlannedSync) and _same_text(s, other) and self._in_helper(s):  # copies of a helper
                credits += credit_candidates(self.tree, s, one, before=other)
            for cand in credits:
                cand.event = self.next_event
                o = self.order(syncs + [cand])
                if o is None:
                    continue
                after = [p for p in o.flag_problems if p.kind == "unordered-reuse"]
                if len(after) < len(reuse) and _fixable(o):
                    syncs = syncs + [cand]
                    self.next_event += cand.slots
                    fixed = True
                    break
            if fixed:
                continue
            if not replace:
                break
            e = s.edge
            self.warnings.append(((f"cannot make the reuse of one event for {e.what} ({s.src} -> {s.dst}) safe with "
                                  "flags; using pipe_barrier(PIPE_ALL) there instead"), s.wait_at.loc))
            syncs = [x for x in syncs if x is not s] + [PlannedSync(
                "barrier", "ALL", None, None, s.wait_at, e, reason=f"{e.kind.upper()} {e.what}: fallback")]
        order = self.order(syncs)
        if order.flag_problems:
            p = order.flag_problems[0]
            where = p.first.wait_at.loc if isinstance(p.first, PlannedSync) else None
            raise EventsExhausted(f"cannot make event reuse on {p.key[0]} -> {p.key[1]} safe", (p.key[0], p.key[1]),
                                  where, p.first if isinstance(p.first, PlannedSync) else None)
        return syncs

    def _merges(self, syncs: list[PlannedSync], fresh: list[PlannedSync]):
        """(index, widened copy) of existing flags that could also order a new dependence."""
        order = self.tree.order
        parent = self.tree.parent
        for c in fresh:
            for i, s in enumerate(syncs):
                if s.kind != "flag" or (s.src, s.dst) != (c.src, c.dst) or s.reverse_loop is not c.reverse_loop \
                        or s.slot != c.slot or s.slots != c.slots or s.ahead is not None or c.ahead is not None \
                        or s.wait_slot != c.wait_slot or s.set_guard != c.set_guard or s.wait_guard != c.wait_guard:
                    continue
                if parent.get(id(s.set_at)) is not parent.get(id(c.set_at)) or \
                        parent.get(id(s.wait_at)) is not parent.get(id(c.wait_at)):
                    continue
                set_at = max(s.set_at, c.set_at, key=lambda x: order[id(x)])
                wait_at = min(s.wait_at, c.wait_at, key=lambda x: order[id(x)])
                if (set_at, wait_at) == (s.set_at, s.wait_at):
                    continue
                if s.reverse_loop is None and order[id(set_at)] >= order[id(wait_at)]:
                    continue
                reason = s.reason if c.edge.what in s.reason else s.reason.replace(
                    s.edge.what, f"{s.edge.what}, {c.edge.what}", 1)
                # A forward flag widened delays its consumer now. A release of buffers the next
                # iteration reuses may be widened over its own readers and writers (the last
                # readers of two panels, one after the other); over anything else it is kept
                # separate, so one buffer's next load does not wait for another's reader.
                own = ({id(s.edge.src), id(c.edge.src)}, {id(s.edge.dst), id(c.edge.dst)}) \
                    if s.reverse_loop is not None else None
                costly = self._delays(s, set_at, wait_at, own)
                yield i, replace(s, set_at=set_at, wait_at=wait_at, reason=reason), costly

    def _delays(self, s: PlannedSync, set_at: ir.Stmt, wait_at: ir.Stmt, own=None) -> bool:
        """Whether widening s to (set_at, wait_at) moves its set past an instruction of its source
        pipe or its wait before one of its destination pipe (that instruction then waits). With
        `own` (a release: the readers it follows, the writers it precedes), the set may pass
        only those readers and the wait only those writers, and nothing else of any pipe: the
        two readers, and the two writers, must follow each other."""
        order = self.tree.order
        readers, writers = own if own is not None else (set(), set())
        src = self._all if own is not None else self._instrs.get(s.src, ())
        dst = self._all if own is not None else self._instrs.get(s.dst, ())
        lo, hi = self._end(s.set_at), self._end(set_at)
        if any(lo < order[id(x)] <= hi and id(x) not in readers for x in src):
            return True
        lo, hi = order[id(wait_at)], order[id(s.wait_at)]
        return any(lo <= order[id(x)] < hi and id(x) not in writers for x in dst)

    def _end(self, s: ir.Stmt) -> int:
        return max(self.tree.order[id(x)] for x in ir.walk(s))

    def _prune(self, syncs: list[PlannedSync], tolerate_reuse: bool = False) -> list[PlannedSync]:
        """Drop every flag the others already imply."""
        kept = list(syncs)
        for s in reversed(syncs):
            trial = [x for x in kept if x is not s]
            o = self.order(trial)
            if o is None or self.pt.unordered(o, self.pt.cross):
                continue
            if not o.flag_problems or (tolerate_reuse and _fixable(o)):
                kept = trial
        return kept

    def _edge_order(self, e: Edge):
        """Deeper blocks first; buffer-free (carried) edges before forward ones, since they make
        per-slot forward flags safe to reuse; by consumer position, latest producer first (one
        set after it covers the earlier ones)."""
        tree = self.tree
        block = e.carrier.body if e.carrier is not None else tree.common_block(e.src, e.dst)
        return (-len(tree.chain(block)), e.carrier is None, tree.order[id(e.dst)], -tree.order[id(e.src)],
                e.src.pipe, e.dst.pipe, -len(tree.chain(e.carrier)) if e.carrier is not None else 0)

    # ------------------------------------------------------------------ barriers

    def barriers(self, flags: list[PlannedSync]) -> list[PlannedSync]:
        """pipe_barrier(P) for same-pipe dependences that neither flags nor other barriers order."""
        cover = BarrierCover(self.pt, self.pt.order(flags, check_flags=False))
        for s in flags:
            if s.kind == "barrier":
                cover.add(s)  # full barriers placed as a last resort order same-pipe pairs too
        fixed = len(cover.barriers)
        placed: dict[tuple[int, str], int] = {}
        for e in sorted(self.pt.same, key=self._edge_order):
            if cover.covered(e):
                continue
            cand = barrier_candidate(self.tree, e)
            key = (id(cand.wait_at), cand.src)
            if key in placed:  # pragma: no cover - a barrier there already orders it
                continue
            placed[key] = cover.add(cand)
        # Drop barriers the others imply, latest first: one is needed while some instance has no
        # other barrier left.
        needs = [by for e in self.pt.same for by in cover.covers(e) or ()]
        users: dict[int, list[set[int]]] = {}
        for by in needs:
            for n in by:
                users.setdefault(n, []).append(by)
        removed: set[int] = set()
        for n in range(len(cover.barriers) - 1, fixed - 1, -1):
            if all(len(by - removed) > 1 for by in users.get(n, ())):
                removed.add(n)
        kept = [b for n, b in enumerate(cover.barriers) if n >= fixed and n not in removed]
        return self._sink_barriers(flags, cover.barriers[:fixed], kept)

    def _sink_barriers(self, flags: list[PlannedSync], fixed: list[PlannedSync],
                       barriers: list[PlannedSync]) -> list[PlannedSync]:
        """A barrier placed before an `if` whose guarded statement is the only consumer it serves
        moves inside that `if`, next to the consumer: it then runs only when the consumer does
        (the epilogue of a split-K loop). One that also orders statements outside stays."""
        order = None
        for i, b in enumerate(barriers):
            inner = inside_guards(self.tree, b.wait_at, b.edge.dst)
            if inner is b.wait_at:
                continue
            trial = barriers[:i] + [replace(b, wait_at=inner)] + barriers[i + 1:]
            order = order or self.pt.order(flags, check_flags=False)
            cover = BarrierCover(self.pt, order)
            for x in fixed + trial:
                cover.add(x)
            if all(cover.covered(e) for e in self.pt.same):
                barriers = trial
        return barriers


def _same_text(a: PlannedSync, b: PlannedSync) -> bool:
    """Two flags written as the same lines: the same pipes and slots, set and waited at the same
    source statements (two inlined copies of one helper's statements)."""
    return a.kind == b.kind == "flag" and (a.src, a.dst, a.slots) == (b.src, b.dst, b.slots) \
        and a.set_at is not None and b.set_at is not None and a.set_at is not b.set_at \
        and a.set_at.loc is not None and a.wait_at.loc is not None \
        and a.set_at.loc == b.set_at.loc and a.wait_at.loc == b.wait_at.loc \
        and (a.slot is None) == (b.slot is None) and (a.ahead is None) == (b.ahead is None)


def _fixable(o: Ordering) -> bool:
    return all(p.kind == "unordered-reuse" for p in o.flag_problems)


def plan_syncs(kernel: ir.Kernel, arch: ArchProfile, address_of: Placement, reporter: Reporter) -> SyncPlan:
    """The synchronization of an AUTO kernel, right for every runtime value (see module doc)."""
    # Planning allocates many small objects that form no reference cycles; Python's cycle
    # collector would rescan them over and over (a third of the time on long kernels).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _plan_syncs(kernel, arch, address_of, reporter)
    finally:
        if was_enabled:
            gc.enable()


def _plan_syncs(kernel: ir.Kernel, arch: ArchProfile, address_of: Placement, reporter: Reporter) -> SyncPlan:
    """The plan on the trace that takes a condition tested twice over the same values as one
    decision (fewer runs, all of them real), and, when that trace holds such a decision, the plan
    on the trace that takes every test alone: the planner places syncs one dependence at a time,
    and a sync placed for a run that cannot happen sometimes orders several dependences at once.
    Both plans are right for every run; the one with fewer syncs is kept (the second on a tie)."""
    tree = Tree.of(kernel)
    gm = classify(kernel)
    plans = []
    for decisions in (True, False):
        heard = Reporter()
        try:
            plan, base = _plan_syncs_on(kernel, arch, address_of, gm, tree, heard, decisions)
        except PtoError:
            if not decisions:
                raise
            continue  # the decisions' copies of the statements between the tests outgrew a limit
        plans.append((len(plan.syncs), not decisions, plan, heard))
        if not base.trace.decisions:
            break
    _, _, plan, heard = min(plans, key=lambda p: (p[0], not p[1]))
    plan.shifted_params = SHIFTED_PARAMS.get()
    reporter.diagnostics.extend(d for d in heard.diagnostics if d not in reporter.diagnostics)
    return plan


def _plan_syncs_on(kernel: ir.Kernel, arch: ArchProfile, address_of: Placement, gm, tree: Tree, reporter: Reporter,
                   decisions: bool) -> tuple[SyncPlan, PlanTrace]:
    base = PlanTrace(kernel, arch, address_of, gm, 0, decisions=decisions)
    _warn_irregular(base, reporter)
    for extra in range(MAX_EXTRA_PERIODS):
        syncs = _plan_on(base, tree, reporter)
        # The plan must hold on a trace that stands for every run (docs/design.md): the planning
        # trace itself unless some loop there keeps too short a stretch around left-out iterations.
        check = (PlanTrace(kernel, arch, address_of, gm, extra, check=True, decisions=decisions)
                 if base.trace.short else base)
        problem = _check(check, syncs)
        if problem is None:
            _name_operands(base, syncs)
            ran = frozenset(k for k, _ in base.trace.markers) | frozenset(k for k, _ in check.trace.markers)
            return SyncPlan(syncs, base.edges, extra, ran=ran), base
        base = PlanTrace(kernel, arch, address_of, gm, extra + 1, decisions=decisions)
    raise PtoError("internal error: the synchronization pattern does not settle within "
                   f"{MAX_EXTRA_PERIODS} loop periods: {problem}", kernel.body.stmts[0].loc if kernel.body.stmts else None)


def _plan_on(pt: PlanTrace, tree: Tree, reporter: Reporter) -> list[PlannedSync]:
    one_id: set[tuple[str, str]] = set()
    full: dict[tuple, str] = {}
    said: list[tuple[str, object]] = []
    while True:
        planner = _Planner(pt, tree, one_id, full)
        flags: list[PlannedSync] = []
        try:
            flags = planner.flags()
            flags = harmonize(pt, tree, flags, planner.warnings)
            # Credits judged on the whole plan, its helper copies' lines included.
            owned = planner.own_flags(flags)
            if owned is not flags:
                flags = harmonize(pt, tree, owned, planner.warnings)
            allocate_events(pt, flags, NUM_EVENT_IDS)
        except EventsExhausted as x:
            pair = x.pair
            if pair not in one_id:
                # Fewer ids: one id per sync on this pair; the planner adds what makes reuse safe.
                where = x.loc or next((s.wait_at.loc for s in flags if (s.src, s.dst) == pair), None)
                said.append((f"{_why_exhausted(x, pair)}; using one event per sync there (less overlap)", where))
                one_id.add(pair)
                continue
            # The last resort: order one of the pair's dependences by a local full barrier.
            victim = x.sync or next((s for s in reversed(flags) if s.kind == "flag" and (s.src, s.dst) == pair), None)
            if victim is None or _key(victim.edge) in full:
                raise PtoError(str(x), x.loc) from None
            full[_key(victim.edge)] = "out of event ids"
            said.append((f"{_why_exhausted(x, pair)}; ordering {victim.edge.what} with pipe_barrier(PIPE_ALL) here",
                         victim.wait_at.loc))
            continue
        # A full barrier (the last resort) at a helper's statement is written in every copy too:
        # one text for every call, like the single-pipe barriers below.
        full_barriers = [s for s in flags if s.kind == "barrier"]
        if full_barriers:
            flags = [s for s in flags if s.kind != "barrier"] + \
                barriers_in_every_copy(tree, pt.kernel, full_barriers, planner.warnings)
        barriers = barriers_in_every_copy(tree, pt.kernel, planner.barriers(flags), planner.warnings)
        for message, where in said + planner.warnings + _late_releases(pt, tree, flags):
            reporter.warn(message, where)
        return flags + barriers


def _late_releases(pt: PlanTrace, tree: Tree, flags: list[PlannedSync]) -> list[tuple[str, object]]:
    """Flags set after a loop whose producer's last instance on the trace comes before the last
    iteration the trace keeps, in a loop whose iterations the trace does not all keep (a long or
    run-time trip count): the set inside the loop, guarded on that iteration
    (`sync_model.last_use_candidates`), is not offered there, since the kept iterations need not
    be the loop's own; the release waits for the whole loop."""
    out: list[tuple[str, object]] = []
    for f in flags:
        loop = f.set_at
        if f.kind != "flag" or f.set_guard is not None or f.reverse_loop is not None or f.ahead is not None \
                or not isinstance(loop, ir.For) or not any(x is loop for x in tree.chain(f.edge.src)):
            continue
        runs = [r for r in pt.trace.runs if r.loop is loop]
        if not runs or all(r.removed == 0 and r.trips is not None for r in runs):
            continue
        ordinals = [k for d in f.edge.instances for lid, k in d.src.iters if lid == id(loop)]
        if ordinals and max(ordinals) < min(r.kept for r in runs) - 1:
            message = (f"the release of {f.edge.what} ({f.src} -> {f.dst}) waits for the whole loop: its last "
                       "producer there runs before the loop's last iteration, but the planner's trace does not "
                       "keep every iteration of this loop, so a release inside it is not offered")
            out.append((message, loop.loc))
    return out


def _why_exhausted(x: EventsExhausted, pair: tuple[str, str]) -> str:
    """Why a pipe pair is planned with fewer ids: too many live at once, or ids enough for every
    flag but a plan that does not check with them (x.problem: what the check found)."""
    if x.problem:
        return (f"the flags would not check with an event id each ({x.problem}; busiest pair {pair[0]} -> "
                f"{pair[1]})")
    return f"more than {NUM_EVENT_IDS} events would be live on {pair[0]} -> {pair[1]}"


def _check(pt: PlanTrace, syncs: list[PlannedSync]) -> str | None:
    """Why the plan does not hold on this trace, or None."""
    try:
        order = pt.order(syncs)
    except BadEventId as x:
        return f"an event id is not known where it is issued ({x})"
    if order.flag_problems:
        p = order.flag_problems[0]
        return f"{p.kind} on {p.key}"
    left = pt.unordered(order, pt.cross)
    if not left:
        cover = BarrierCover(pt, order)
        for s in syncs:
            if s.kind == "barrier":
                cover.add(s)
        left = [e for e in pt.same if cover.covers(e) is None]
    if left:
        e = left[0]
        return f"{e.kind} {e.what} {e.src.op}@{e.src.loc.short} -> {e.dst.op}@{e.dst.loc.short} unordered"
    return None


def _name_operands(pt: PlanTrace, syncs: list[PlannedSync]) -> None:
    """Each reason names the operands whose dependences need that sync (those left unordered
    without it), so a reader sees what one flag protects."""
    for s in syncs:
        if s.kind != "flag":
            continue
        o = pt.order([x for x in syncs if x is not s], check_flags=False, cross_only=True)
        left = [e for e in pt.unordered(o, pt.cross) if (e.src.pipe, e.dst.pipe) == (s.src, s.dst)]
        ops = list(dict.fromkeys(e.what for e in left))
        if not ops:
            continue
        kinds = "/".join(k.upper() for k in ("raw", "war", "waw") if any(k in e.kinds for e in left))
        shown = ", ".join(ops[:3]) + (", ..." if len(ops) > 3 else "")
        tail = " (produced one iteration ahead)" if s.ahead is not None else \
            " (the copy's next use)" if s.counted else \
            " (next iteration)" if s.prime_at is not None else \
            " (the lane's last reader in the loop before)" if s.rides is not None and s.reverse_loop is None else ""
        s.reason = f"{kinds} {shown}: {s.src} -> {s.dst}{tail}"
        s.operands = ops


def _warn_irregular(pt: PlanTrace, reporter: Reporter) -> None:
    """Expressions that do not repeat with their loop's period in a loop the analysis shortens
    are taken as unknown there: correct, possibly more synchronization than needed."""
    seen: set[int] = set()
    for e, where, loop in pt.trace.irregular:
        if id(e) in seen:
            continue
        seen.add(id(e))
        reporter.warn(f"'{cpp_text(e)}' does not repeat with the iterations of the loop at {loop.loc.short}; the "
                      "synchronization assumes it can take any value there (it may synchronize more than "
                      "needed)", where.loc)


def sync_insertions(kernel: ir.Kernel, plan: SyncPlan, main: str) -> list[Insertion]:
    """Insert-only edits for the planned syncs, each with a short reason."""
    token = SHIFTED_PARAMS.set(plan.shifted_params)
    try:
        return emit(kernel, plan.syncs, main, ran=plan.ran)
    finally:
        SHIFTED_PARAMS.reset(token)


def pipe_graph(plan: SyncPlan):
    """Instructions, dependences and the syncs that order them, as one graph.

    Nodes: instruction uids (op, pipe, loc) and ("sync", n) for each planned sync (kind,
    pipes, event, reason). Edges: "dep" between instructions (kinds, operand, carrying loop)
    and "orders" from a sync's producer to the sync and from the sync to its consumer.
    """
    import networkx as nx

    g = nx.MultiDiGraph(dependence_graph(plan.edges))
    for n, s in enumerate(plan.syncs):
        node = ("sync", n)
        g.add_node(node, kind=s.kind, src=s.src, dst=s.dst, event=s.event, slots=s.slots, reason=s.reason)
        g.add_edge(s.edge.src.uid, node, role="orders")
        g.add_edge(node, s.edge.dst.uid, role="orders")
    return g
