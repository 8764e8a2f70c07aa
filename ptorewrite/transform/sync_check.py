"""Checking a set of planned syncs against the kernel's bounded executions.

A `PlanTrace` holds one bounded trace (`analysis.bounded`), its dependences grouped into static
edges, and turns a list of planned syncs into the events they issue at the trace's markers
(event ids evaluated with the scalar values there). Happens-before over those events
(`analysis.hb.order_events`) says which dependence instances are ordered and which flag-protocol
rules are broken. Same-pipe dependences that need a barrier are checked separately and cheaply
(`BarrierCover`): a pipe_barrier orders an instance when one of its instances lies between the
two on every path, or flags already order them. The barriers some instructions' own
implementations issue (`execution.mark_barrier_inside`: a2a3 row reductions and row broadcasts of
a column, the model `check` uses too) count as such barriers, at the instruction: they order what
comes before the instruction with what comes after it, and the instruction's own accesses before
its barrier or after it with the other side (those pairs are not even dependences: `deps`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from operator import itemgetter

from ptorewrite.analysis import ir
from ptorewrite.analysis.bounded import BoundedTrace, bounded_trace
from ptorewrite.analysis.cluster_view import CROSS_OP
from ptorewrite.analysis.deps import Edge, dynamic_deps, static_edges
from ptorewrite.analysis.execution import Placement
from ptorewrite.analysis.gm_pairs import GmPairs
from ptorewrite.analysis.hb import (
    ALL_BARRIER,
    ALT,
    BARRIER,
    EXIT,
    FORK,
    JOIN,
    SET,
    WAIT,
    Ordering,
    order_events,
    same_pipe_ordered,
)
from ptorewrite.analysis.unit_flags import is_unit_flag_event
from ptorewrite.arch import PIPES, ArchProfile
from ptorewrite.transform.sync_model import BadEventId, PlannedSync, event_value, guard_value, root_tiles

PIPE_INDEX = {p: i for i, p in enumerate(PIPES)}
_CONTROL = {"fork": FORK, "alt": ALT, "exit": EXIT, "join": JOIN}
# Offsets of sync events from their marker: before a statement waits come first, then
# barriers, then primes; after it sets come first and drains last.
_WAIT, _BARRIER, _PRIME, _SET, _DRAIN = 1, 2, 3, 1, 4


CROSS_OPS = frozenset(CROSS_OP.values())  # a cluster core's cross-core flags (analysis.cluster_view)


class PlanTrace:
    def __init__(self, kernel: ir.Kernel, arch: ArchProfile, placement: Placement, gm: GmPairs, extra: int,
                 check: bool = False, decisions: bool = True):
        self.kernel = kernel
        self.arch = arch
        self.trace: BoundedTrace = bounded_trace(kernel, arch, placement, extra, gm, check, decisions)
        self.edges: list[Edge] = static_edges(dynamic_deps(self.trace), kernel)
        self.cross = [e for e in self.edges if e.cross_pipe]
        self.same = [e for e in self.edges if not e.cross_pipe and not self._program_order_suffices(e)]
        self._controls = [(c.pos, _CONTROL[c.kind], c.fork, 0, 0, None) for c in self.trace.controls]
        self._forks = bool(self._controls)
        self._handshake = False
        self._op_positions = [[] for _ in PIPES]
        # pipe -> (positions, contexts) of the ops that issue a barrier of their pipe inside.
        self.inner_barriers: dict[int, tuple[list[int], list[int]]] = {}
        for op in self.trace.ops:
            self._op_positions[PIPE_INDEX[op.pipe]].append(op.pos)
            if op.barrier_inside:
                positions, contexts = self.inner_barriers.setdefault(PIPE_INDEX[op.pipe], ([], []))
                positions.append(op.pos)
                contexts.append(op.ctx)
        self._controls = self._with_handshake(self._controls)
        self._events: dict[tuple[int, int], list] = {}
        self._instances: dict[int, list[tuple[int, int, int, int]]] = {}

    def _with_handshake(self, controls: list) -> list:
        """The a2a3 L0C unit-flag steps (analysis.unit_flags) join every ordering asked for, as
        the hardware issues them whatever syncs the plan adds. A region the paths into a join
        leave in different states is forgotten there (`BoundedMachine._join_flag_states`): its
        signal may stay pending, which orders nothing and is no problem of the plan's. A
        handshake wait with nothing sure to wait for would order what the hardware may not:
        then the steps are left out and the plan orders those accesses with syncs of its own."""
        steps = [(pos, SET if kind == "set" else WAIT, PIPE_INDEX[src], PIPE_INDEX[dst], ev, None)
                 for pos, kind, src, dst, ev in self.trace.handshakes]
        if not steps:
            return controls
        events = sorted(controls + steps, key=itemgetter(0))
        problems = order_events(events, True, self._op_positions, forks=self._forks).flag_problems
        if any(p.kind == "wait-without-set" for p in problems if is_unit_flag_event(p.key[2])):
            return controls
        self._handshake = True
        return events

    # ------------------------------------------------------------------ edges

    def _program_order_suffices(self, e: Edge) -> bool:
        if e.src.op in CROSS_OPS or e.dst.op in CROSS_OPS:
            return True  # a cross-core set covers its pipe's earlier work; a wait stalls its pipe
        same_tile = root_tiles(e.src) & root_tiles(e.dst)
        return all(same_pipe_ordered(self.arch, e.src.pipe, k, e.src.op, e.dst.op, bool(same_tile))
                   for k in e.kinds)

    def instances(self, e: Edge) -> list[tuple[int, int, int, int]]:
        """(producer pipe, producer position, consumer pipe, consumer position) to check. For one
        consumer only the latest producer matters: knowing an op of a pipe complete means
        knowing every earlier one of that pipe complete."""
        got = self._instances.get(id(e))
        if got is None:
            latest: dict[int, int] = {}
            for d in e.instances:
                y = d.dst.pos
                if d.src.pos > latest.get(y, -1):
                    latest[y] = d.src.pos
            sp, dp = PIPE_INDEX[e.src.pipe], PIPE_INDEX[e.dst.pipe]
            got = self._instances[id(e)] = [(sp, x, dp, y) for y, x in sorted(latest.items())]
        return got

    def ordered(self, order: Ordering, e: Edge) -> bool:
        return order.all_ordered(self.instances(e))

    def unordered(self, order: Ordering, edges: list[Edge]) -> list[Edge]:
        return [e for e in edges if not self.ordered(order, e)]

    # ------------------------------------------------------------------ events

    def sync_events(self, s: PlannedSync) -> list:
        """Events one planned sync issues on this trace (raises BadEventId)."""
        key = (id(s), s.event)
        got = self._events.get(key)
        if got is not None and got[0] is s:
            return got[1]
        out = []
        idx = self.trace.markers.get
        if s.kind == "barrier":
            kind, pipe = (ALL_BARRIER, 0) if s.src == "ALL" else (BARRIER, PIPE_INDEX[s.src])
            out = [(m.pos + _BARRIER, kind, pipe, 0, 0, s) for m in idx((id(s.wait_at), "before"), ())]
        else:
            a, b = PIPE_INDEX[s.src], PIPE_INDEX[s.dst]
            for wait, (stmt, where, off, kind) in ((False, (s.set_at, "after", _SET, SET)),
                                                    (True, (s.wait_at, "before", _WAIT, WAIT))):
                slot = s.id_expr(wait)
                guard = s.wait_guard if wait else s.set_guard
                for m in idx((id(stmt), where), ()):
                    if guard is not None and not guard_value(guard, m.env, m.forced):
                        continue
                    k = event_value(slot, m.env, m.forced) if slot is not None else 0
                    if not 0 <= k < s.slots:
                        # Not one of its slots here (a FIFO count read before the pop it names):
                        # in C++ another id, or a negative one.
                        raise BadEventId(f"slot {k} of {s.slots}")
                    ev = s.event + k
                    out.append((m.pos + off, kind, a, b, ev, s))
            if s.prime_at is not None:
                for where, off, kind in (("before", _PRIME, SET), ("after", _DRAIN, WAIT)):
                    ids = s.boundary_ids(where)
                    for m in idx((id(s.prime_at if where == "before" else s.drain_stmt), where), ()):
                        for e in ids:
                            out.append((m.pos + off, kind, a, b, event_value(e, m.env, m.forced), s))
        out.sort(key=lambda x: x[0])
        self._events[key] = (s, out)
        return out

    def _bracket_keys(self, s: PlannedSync) -> set[tuple]:
        """(position, kind, pipes, id) of the prime and drain events of a flag."""
        out: set[tuple] = set()
        if s.prime_at is None:
            return out
        a, b = PIPE_INDEX[s.src], PIPE_INDEX[s.dst]
        idx = self.trace.markers.get
        for where, off, kind in (("before", _PRIME, SET), ("after", _DRAIN, WAIT)):
            for m in idx((id(s.prime_at if where == "before" else s.drain_stmt), where), ()):
                for e in s.boundary_ids(where):
                    out.add((m.pos + off, kind, a, b, event_value(e, m.env, m.forced)))
        return out

    def order(self, syncs: list[PlannedSync], check_flags: bool = True, cross_only: bool = False) -> Ordering:
        """Happens-before with these syncs. `cross_only`: only cross-pipe dependences and the flag
        protocol will be asked about; a pipe_barrier(P) changes neither (it gives P no knowledge
        of other pipes, and a set carries all of its own pipe's past anyway), so its events are
        left out."""
        events = list(self._controls)
        bracketed: set[tuple] = set()
        for s in syncs:
            if cross_only and s.kind == "barrier" and s.src != "ALL":
                continue
            if s.counted:
                # The copies of a flag on a helper's counted copies prime and drain its ids at the
                # same places with one line each: once.
                ends = self._bracket_keys(s)
                for ev in self.sync_events(s):
                    key = ev[:5]
                    if key in ends:
                        if key in bracketed:
                            continue
                        bracketed.add(key)
                    events.append(ev)
                continue
            events.extend(self.sync_events(s))
        events.sort(key=itemgetter(0))
        order = order_events(events, check_flags, self._op_positions, forks=self._forks)
        if self._handshake and order.flag_problems:
            order.flag_problems[:] = [p for p in order.flag_problems if not is_unit_flag_event(p.key[2])]
        return order


class BarrierCover:
    """Which same-pipe dependence instances a set of barriers orders (with the flags' ordering)."""

    def __init__(self, pt: PlanTrace, flags: Ordering):
        self.pt = pt
        self.flags = flags
        self.at: dict[int, tuple[list[int], list[tuple[int, int]]]] = {}  # pipe -> (positions, (ctx, no.))
        self.barriers: list[PlannedSync] = []
        self._open: dict[int, list[tuple[int, int, int]]] = {}

    def add(self, s: PlannedSync) -> int:
        n = len(self.barriers)
        self.barriers.append(s)
        pipe = -1 if s.src == "ALL" else PIPE_INDEX[s.src]
        positions, owners = self.at.setdefault(pipe, ([], []))
        for m in self.pt.trace.markers.get((id(s.wait_at), "before"), ()):
            i = bisect_right(positions, m.pos)
            positions.insert(i, m.pos)
            owners.insert(i, (m.ctx, n))
        return n

    def _unflagged(self, e: Edge) -> list[tuple[int, int, int, int]]:
        """(producer position, consumer position, producer context, consumer context) of the
        instances of `e` that neither flags nor the instructions' own barriers order."""
        got = self._open.get(id(e))
        if got is None:
            pipe = PIPE_INDEX[e.src.pipe]
            src_ctx = {d.src.pos: d.src.ctx for d in e.instances}
            dst_ctx = {d.dst.pos: d.dst.ctx for d in e.instances}
            got = [(sp, dp, src_ctx[sp], dst_ctx[dp]) for _, sp, _, dp in self.pt.instances(e)
                   if not self.flags.ordered(pipe, sp, pipe, dp)]
            inner = self.pt.inner_barriers.get(pipe)
            if inner and got:
                got = [x for x in got if not self._inner_orders(inner, x)]
            self._open[id(e)] = got
        return got

    def _inner_orders(self, inner: tuple[list[int], list[int]], instance: tuple[int, int, int, int]) -> bool:
        """An op of the pipe that issues a barrier inside lies strictly between the two on every
        path. (A pair that the producer's or the consumer's own barrier orders is no dependence:
        `deps`.)"""
        sp, dp, xctx, yctx = instance
        positions, contexts = inner
        lo, hi = bisect_right(positions, sp), bisect_left(positions, dp)
        flat = not self.pt.trace.ctx_parent
        return any(flat or self._on_path(contexts[i], xctx, yctx) for i in range(lo, hi))

    def _on_path(self, ctx: int, xctx: int, yctx: int) -> bool:
        """A barrier point of context `ctx` issued between the producer (context `xctx`) and the
        consumer (`yctx`) lies on every path through both: every path through one of them passes
        the points of `ctx` (a barrier later in the producer's own branch counts, as one before
        the consumer in its)."""
        within = self.pt.trace.ctx_within
        return ctx == yctx or within(yctx, ctx) or within(xctx, ctx)

    def covered(self, e: Edge) -> bool:
        """Every instance of `e` is ordered by flags or by some barrier."""
        pipe = PIPE_INDEX[e.src.pipe]
        flat = not self.pt.trace.ctx_parent  # no forks: every point is on the one path
        rows = [r for r in (self.at.get(pipe), self.at.get(-1)) if r is not None]
        for sp, dp, xctx, yctx in self._unflagged(e):
            for positions, owners in rows:
                lo, hi = bisect_right(positions, sp), bisect_right(positions, dp)
                if lo < hi and (flat or any(self._on_path(owners[i][0], xctx, yctx) for i in range(lo, hi))):
                    break
            else:
                return False
        return True

    def covers(self, e: Edge) -> list[set[int]] | None:
        """Per instance of `e` not ordered by flags, the barriers that order it; None if some
        instance has none."""
        pipe = PIPE_INDEX[e.src.pipe]
        rows = [r for r in (self.at.get(pipe), self.at.get(-1)) if r is not None]
        flat = not self.pt.trace.ctx_parent
        out = []
        for sp, dp, xctx, yctx in self._unflagged(e):
            by = set()
            for positions, owners in rows:
                lo, hi = bisect_right(positions, sp), bisect_right(positions, dp)
                if flat:
                    by.update(owners[i][1] for i in range(lo, hi))
                    continue
                for i in range(lo, hi):
                    ctx, n = owners[i]
                    if self._on_path(ctx, xctx, yctx):
                        by.add(n)
            if not by:
                return None
            out.append(by)
        return out
