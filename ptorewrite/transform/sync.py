"""Sync insertion: the set_flag / wait_flag / pipe_barrier that correctness needs, no more.

1. Dependences come from the concrete trace after memory placement (`analysis.deps`):
   exact per iteration, so `x[0]` and `x[1]` never conflict.
2. Each dependence not yet ordered gets one sync, placed as a hand-written kernel does:
   - forward: set right after the producer's statement, wait right before the consumer's,
     both at the level of the innermost block that holds the two;
   - carried by a loop whose consumer comes first in the body (buffer free, WAR): a
     reverse flag, waited before the consumer and set after the producer, primed before
     the outermost enclosing loop and drained after it;
   - tile arrays: the event id is the slot (`(event_t)(i % 2)`), so slot 1 can be
     loaded while slot 0 is computed on; when iteration i produces the slot iteration i + 1
     consumes (prefetch), the set carries the producer's slot and the wait the consumer's;
   - same pipe, where the architecture needs it: pipe_barrier before the consumer;
   - before a new sync, widening an existing one (set later, wait earlier) to serve both.
   Whether a dependence is already ordered is decided by happens-before on the trace
   (`analysis.hb`), so ordering implied through other pipes or earlier iterations is used.
   A flag id reused across iterations must be set again only after its previous wait ran;
   where nothing guarantees that, a "credit" flag in the other direction is added.
3. Every sync whose removal leaves all dependences ordered is removed again.
4. Event ids 0..7 are allocated per (source, destination) pipe pair by lifetime; when a
   pair runs out, it is planned again with one id per sync, and as a last resort a
   dependence is ordered by pipe_barrier(PIPE_ALL) with a warning.
Every step is checked on traces of the kernel with several runtime values.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import networkx as nx

from ptorewrite.analysis import ir
from ptorewrite.analysis.deps import Edge, dependence_graph, dynamic_deps, static_edges
from ptorewrite.analysis.execution import Marker, Placement, Trace, unroll
from ptorewrite.analysis.expr import Expr, cpp_text
from ptorewrite.analysis.hb import HB, happens_before, same_pipe_ordered
from ptorewrite.arch import NUM_EVENT_IDS, ArchProfile
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.transform.edits import Insertion

VIRTUAL_BASE = 1000  # provisional event ids while planning; real ids are allocated at the end


# ---------------------------------------------------------------- planned syncs


@dataclass(eq=False)
class PlannedSync:
    kind: str  # "flag" or "barrier"
    src: str  # source pipe (the barrier's pipe)
    dst: str | None
    set_at: ir.Stmt | None  # set after this statement
    wait_at: ir.Stmt  # wait (or barrier) before this statement
    edge: Edge
    reverse_loop: ir.For | None = None  # reverse flag: carried by this loop
    prime_at: ir.Stmt | None = None  # prime before / drain after this statement
    slot: Expr | None = None  # event id offset per slot
    slots: int = 1
    # Produced one iteration ahead (software pipelining): the set uses the producer's slot, the
    # wait the consumer's, and `ahead` is the loop; its prime and drain are the one id pending
    # before the first and after the last iteration.
    wait_slot: Expr | None = None
    ahead: ir.For | None = None
    event: int = 0  # base event id (virtual while planning)
    reason: str = ""
    operands: list[str] = field(default_factory=list)  # what it protects, for prime/drain comments

    def event_ids(self, env: dict | None = None, where: str = "before") -> list[int]:
        """Ids primed (before) or drained (after): every slot, or for a sync produced one
        iteration ahead the consumer's slot of the first iteration / of the one after the last."""
        if self.ahead is None:
            return [self.event + k for k in range(self.slots)]
        return [self.event + int(self.wait_slot.eval({**(env or {}), self.ahead.var: _ahead_index(self.ahead,
                                                                                                 where)}))]


@dataclass(eq=False)
class DynSync:
    """One issued set/wait/barrier of a planned sync, in a trace being checked."""

    kind: str  # "set", "wait", "barrier"
    src: str  # source pipe (the barrier's pipe)
    dst: str | None
    event: int | None
    origin: PlannedSync

    @property
    def pipe(self) -> str:
        return self.src if self.kind != "wait" else self.dst


@dataclass
class SyncPlan:
    syncs: list[PlannedSync]
    edges: list[Edge]


# ---------------------------------------------------------------- statement tree


@dataclass
class Tree:
    """Parent links of the IR: for placement at the level of a common block."""

    parent: dict[int, ir.Stmt]  # id(stmt) -> enclosing Block/For/If
    order: dict[int, int]  # id(stmt) -> pre-order position

    @classmethod
    def of(cls, kernel: ir.Kernel) -> Tree:
        parent: dict[int, ir.Stmt] = {}
        order: dict[int, int] = {}

        def visit(s: ir.Stmt, p: ir.Stmt | None):
            order[id(s)] = len(order)
            if p is not None:
                parent[id(s)] = p
            kids = s.stmts if isinstance(s, ir.Block) else [s.body] if isinstance(s, ir.For) else \
                [s.then] + ([s.other] if s.other is not None else []) if isinstance(s, ir.If) else []
            for k in kids:
                visit(k, s)

        visit(kernel.body, None)
        return cls(parent, order)

    def chain(self, s: ir.Stmt) -> list[ir.Stmt]:
        """s and its ancestors, innermost first."""
        out = [s]
        while id(out[-1]) in self.parent:
            out.append(self.parent[id(out[-1])])
        return out

    def child_of(self, block: ir.Block, s: ir.Stmt) -> ir.Stmt:
        """The statement directly in `block` that contains s."""
        prev = s
        for a in self.chain(s)[1:]:
            if a is block:
                return prev
            prev = a
        raise KeyError("not inside block")

    def common_block(self, a: ir.Stmt, b: ir.Stmt) -> ir.Block:
        anc = {id(x) for x in self.chain(a)}
        for x in self.chain(b):
            if isinstance(x, ir.Block) and id(x) in anc:
                return x
        raise KeyError("no common block")

    def outermost_loop_holding(self, s: ir.Stmt) -> ir.Stmt:
        """The outermost statement of s's own function that contains s (reverse flags are
        primed before it and drained after it)."""
        chain = self.chain(s)
        for i, a in enumerate(chain[1:], start=1):
            if isinstance(a, ir.Block) and (a.inlined or id(a) not in self.parent):
                return chain[i - 1]
        return s

    def visible_vars(self, s: ir.Stmt) -> set[str]:
        """Variables in scope next to s, within s's own function: enclosing loop variables and
        local scalars (e.g. a ping-pong index) declared earlier in an enclosing block."""
        out: set[str] = set()
        inner = s
        for a in self.chain(s)[1:]:
            if isinstance(a, ir.For):
                out.add(a.var)
            if isinstance(a, ir.Block):
                for x in a.stmts:
                    if x is inner:
                        break
                    if isinstance(x, ir.Assign):
                        out.add(x.var)
                if a.inlined:
                    break
            inner = a
        return out


# ---------------------------------------------------------------- analysis context


@dataclass
class Context:
    kernel: ir.Kernel
    arch: ArchProfile
    traces: list[Trace]
    tree: Tree
    edges: list[Edge]
    no_slot: set[tuple[str, str]] = field(default_factory=set)  # pipe pairs limited to one id per sync

    def stream(self, trace: Trace, syncs: list[PlannedSync]) -> list:
        """The trace with the planned syncs expanded at their markers."""
        at: dict[tuple[int, str], list] = {}
        for s in syncs:
            if s.kind == "barrier":
                at.setdefault((id(s.wait_at), "before"), []).append((1, "barrier", s))
                continue
            at.setdefault((id(s.wait_at), "before"), []).append((0, "wait", s))
            at.setdefault((id(s.set_at), "after"), []).append((0, "set", s))
            if s.prime_at is not None:
                at.setdefault((id(s.prime_at), "before"), []).append((2, "prime", s))
                at.setdefault((id(s.prime_at), "after"), []).append((3, "drain", s))
        out = []
        for it in trace.items:
            if not isinstance(it, Marker):
                out.append(it)
                continue
            for _, what, s in sorted(at.get((id(it.stmt), it.where), ()), key=lambda x: x[0]):
                if what == "barrier":
                    out.append(DynSync("barrier", s.src, None, None, s))
                elif what in ("prime", "drain"):
                    for ev in s.event_ids(it.env, it.where):
                        out.append(DynSync("set" if what == "prime" else "wait", s.src, s.dst, ev, s))
                else:
                    slot = s.wait_slot if what == "wait" and s.wait_slot is not None else s.slot
                    ev = s.event + (int(slot.eval(it.env)) if slot is not None else 0)
                    out.append(DynSync(what, s.src, s.dst, ev, s))
        return out

    def check(self, syncs: list[PlannedSync]) -> tuple[list[Edge], list]:
        """Edges left unordered and flag-protocol problems, over every trace."""
        unordered: list[Edge] = []
        problems: list = []
        hbs = [happens_before(self.stream(t, syncs)) for t in self.traces]
        for e in self.edges:
            if not self.edge_ordered(e, hbs):
                unordered.append(e)
        for h in hbs:
            problems += h.flag_problems
        return unordered, problems

    def edge_ordered(self, e: Edge, hbs: list[HB]) -> bool:
        if not e.cross_pipe and self._program_order_suffices(e):
            return True
        for inst in e.instances:
            for h in hbs:
                if id(inst.dst) in h.knowledge:
                    if not h.ordered(inst.src, inst.dst):
                        return False
                    break
        return True

    def _program_order_suffices(self, e: Edge) -> bool:
        same_tile = _root_tiles(e.src) & _root_tiles(e.dst)
        return all(same_pipe_ordered(self.arch, e.src.pipe, k, e.src.op, e.dst.op, bool(same_tile))
                   for k in e.kinds)


def _root(ref: ir.TileRef) -> tuple[ir.TileDecl, Expr | None]:
    while ref.tile.alias is not None:
        ref = ref.tile.alias.base
    return ref.tile, ref.index


def _root_tiles(s: ir.Instr) -> set[int]:
    return {id(_root(a.value)[0]) for a in s.tile_args}


# ---------------------------------------------------------------- building one sync


def candidates(ctx: Context, e: Edge) -> list[PlannedSync]:
    """Ways to order one dependence, most precise first.

    Levels run from the innermost block holding both ends out to the body of the loop
    that carries the dependence. At each level the ends are the statements of that block
    that contain them: if the producer's comes first, a forward flag; otherwise a reverse
    flag of that block's loop, primed before the outermost loop of the function. A
    reverse flag of an inner loop also orders the producer's run before the consumer's
    next run, because its prime and drain are hoisted and its per-slot flags chain across
    runs. Each is tried with per-slot event ids, then with one id.
    """
    tree = ctx.tree
    if not e.cross_pipe:
        block = e.carrier.body if e.carrier is not None else tree.common_block(e.src, e.dst)
        b = tree.child_of(block, e.dst)
        return [PlannedSync("barrier", e.src.pipe, None, None, b, e,
                            reason=f"{e.kind.upper()} {e.what}: {e.src.op} -> {e.dst.op} on PIPE_{e.src.pipe}")]
    outer = e.carrier.body if e.carrier is not None else None
    levels: list[ir.Block] = []
    block = tree.common_block(e.src, e.dst)
    while True:
        levels.append(block)
        if outer is None or block is outer:
            break
        block = next(x for x in tree.chain(block)[1:] if isinstance(x, ir.Block))
    out: list[PlannedSync] = []
    for block in levels:
        a = tree.child_of(block, e.src)
        b = tree.child_of(block, e.dst)
        forward = a is not b and tree.order[id(a)] < tree.order[id(b)]
        loop = tree.parent.get(id(block))
        if not forward and not isinstance(loop, ir.For):
            continue
        if a is not b and e.carrier is not None and loop is e.carrier \
                and (e.src.pipe, e.dst.pipe) not in ctx.no_slot:
            ahead = _produced_ahead(ctx, e, a, b)
            if ahead is not None:
                out.append(ahead)
        for slotted in (True, False):
            if slotted and (e.src.pipe, e.dst.pipe) in ctx.no_slot:
                continue
            slot, slots = _slot_of(e) if slotted else (None, 1)
            if slot is not None and not slot.free_vars() <= (tree.visible_vars(a) & tree.visible_vars(b)):
                continue  # the slot is not expressible where the flags go
            if slotted and slot is None:
                continue
            pipes = f"{e.src.pipe} -> {e.dst.pipe}"
            if forward:
                out.append(PlannedSync("flag", e.src.pipe, e.dst.pipe, a, b, e, slot=slot, slots=slots,
                                       reason=f"{e.kind.upper()} {e.what}: {pipes}"))
            else:
                out.append(PlannedSync("flag", e.src.pipe, e.dst.pipe, a, b, e, reverse_loop=loop,
                                       prime_at=tree.outermost_loop_holding(loop), slot=slot, slots=slots,
                                       reason=f"{e.kind.upper()} {e.what}: {pipes} (next iteration)"))
    return out


def _produced_ahead(ctx: Context, e: Edge, a: ir.Stmt, b: ir.Stmt) -> PlannedSync | None:
    """A dependence between consecutive iterations whose two ends index one tile array with
    shifted slots (software pipelining: iteration i loads the slot iteration i + 1 computes
    on, and frees the slot iteration i + 1 loads into). Per-slot flags with the producer's
    slot at the set and the consumer's at the wait make the consumer wait for the instance one
    iteration earlier, not for the one just issued. Only the first iteration's slot is primed
    and only the last one's drained, since every other set is consumed by the next iteration."""
    loop = e.carrier
    if loop.trip_count() is None or any(
            inst.dst.iters[_depth(inst.dst, loop)][1] - inst.src.iters[_depth(inst.src, loop)][1] != 1
            for inst in e.instances):
        return None
    pair = _slot_pair(e)
    if pair is None:
        return None
    produced, consumed, slots = pair
    i = loop.var
    loop_vars = {x.var for x in ctx.tree.chain(loop) if isinstance(x, ir.For)}
    if not (produced.free_vars() | consumed.free_vars()) <= loop_vars:
        return None  # shifted slots are recognised for loop-variable indices only
    env0 = {v: 0 for v in (produced.free_vars() | consumed.free_vars()) - {i}}
    start = int(loop.start.eval({}))
    step = int(loop.step.eval({}))
    trips = loop.trip_count()
    for k in range(1, trips + 1):
        v = start + k * step
        if produced.eval({**env0, i: v - step}) != consumed.eval({**env0, i: v}):
            return None
    if not (produced.free_vars() | consumed.free_vars()) <= (ctx.tree.visible_vars(a) & ctx.tree.visible_vars(b)):
        return None
    return PlannedSync("flag", e.src.pipe, e.dst.pipe, a, b, e, prime_at=loop, slot=produced, slots=slots,
                       wait_slot=consumed, ahead=loop,
                       reason=f"{e.kind.upper()} {e.what}: {e.src.pipe} -> {e.dst.pipe} (produced one iteration ahead)")


def _depth(step, loop: ir.For) -> int:
    return next(k for k, (lid, _) in enumerate(step.iters) if lid == id(loop))


def _ahead_index(loop: ir.For, where: str) -> int:
    """The loop variable's value in the first iteration (before), or one past the last (after)."""
    start = int(loop.start.eval({}))
    if where == "before":
        return start
    return start + loop.trip_count() * int(loop.step.eval({}))


def _slot_pairs(e: Edge):
    """(producer's index, consumer's index, slots) for each way the two ends index one tile array
    with non-constant indices."""
    for da in e.dst.tile_args:
        if da.text != e.what:
            continue
        tile, index = _root(da.value)
        if index is None or index.is_const or tile.count is None:
            continue
        for sa in e.src.tile_args:
            st, sidx = _root(sa.value)
            if st is tile and sidx is not None and not sidx.is_const:
                yield sidx, index, tile.count


def _slot_pair(e: Edge) -> tuple[Expr, Expr, int] | None:
    """The producer's and the consumer's index into one tile array, when both are slots."""
    return next(_slot_pairs(e), None)


def _slot_of(e: Edge) -> tuple[Expr | None, int]:
    """Event ids per slot when both ends index one tile array with the same expression."""
    return next(((index, count) for sidx, index, count in _slot_pairs(e) if sidx == index), (None, 1))


# ---------------------------------------------------------------- the planner


def plan_syncs(kernel: ir.Kernel, arch: ArchProfile, address_of: Placement, reporter: Reporter,
               value_sets: list[dict] | None = None) -> SyncPlan:
    value_sets = value_sets or default_value_sets(kernel)
    traces = [unroll(kernel, arch, vals, placement=address_of, markers=True, require_semantics=False)
              for vals in value_sets]
    _warn_unexecuted(kernel, traces, value_sets, reporter)
    edges: list[Edge] = []
    seen: dict[tuple, Edge] = {}
    for t in traces:
        for e in static_edges(dynamic_deps(t), kernel):
            key = (e.src.uid, e.dst.uid, id(e.carrier) if e.carrier else None)
            if key in seen:
                seen[key].kinds |= e.kinds
                seen[key].instances += e.instances
            else:
                seen[key] = e
                edges.append(e)
    ctx = Context(kernel, arch, traces, Tree.of(kernel), edges)
    syncs = _prune(ctx, _greedy(ctx, reporter))
    while True:
        try:
            _allocate_events(ctx, syncs, reporter)
            break
        except EventsExhausted as exhausted:
            pair = exhausted.pair
        where = next(s.wait_at.loc for s in syncs if (s.src, s.dst) == pair)
        if pair not in ctx.no_slot:
            # Fewer ids: one id per sync on this pair; the planner adds what makes reuse safe.
            reporter.warn(f"more than {NUM_EVENT_IDS} events would be live on {pair[0]} -> {pair[1]}; "
                          "using one event per sync there (less overlap)", where)
            ctx.no_slot.add(pair)
            syncs = _prune(ctx, _greedy(ctx, reporter))
        else:
            syncs = _full_barrier_instead(syncs, pair, reporter)
    left, problems = ctx.check(syncs)
    if left or problems:
        raise PtoError(_internal(left, problems), kernel.body.stmts[0].loc if kernel.body.stmts else None)
    _name_operands(ctx, syncs)
    return SyncPlan(syncs, edges)


def _name_operands(ctx: Context, syncs: list[PlannedSync]) -> None:
    """Each reason names the operands whose dependences need that sync (those left unordered
    without it), so a reader sees what one flag protects."""
    for s in syncs:
        if s.kind != "flag":
            continue
        left, _ = ctx.check([x for x in syncs if x is not s])
        ops = list(dict.fromkeys(e.what for e in left if (e.src.pipe, e.dst.pipe) == (s.src, s.dst)))
        if not ops:
            continue
        kinds = "/".join(k.upper() for k in ("raw", "war", "waw")
                         if any(k in e.kinds for e in left if (e.src.pipe, e.dst.pipe) == (s.src, s.dst)))
        shown = ", ".join(ops[:3]) + (", ..." if len(ops) > 3 else "")
        tail = " (produced one iteration ahead)" if s.ahead is not None else \
            " (next iteration)" if s.prime_at is not None else ""
        s.reason = f"{kinds} {shown}: {s.src} -> {s.dst}{tail}"
        s.operands = ops


def _warn_unexecuted(kernel: ir.Kernel, traces: list[Trace], value_sets: list[dict], reporter: Reporter) -> None:
    """Synchronization is planned from executions; an instruction that none of them reached,
    but that other runtime values could reach, gets none: say so. (One that no value reaches,
    e.g. a branch the compile-time sizes rule out, needs none.)"""
    ran = {id(d.stmt) for t in traces for d in t.steps if d.kind == "op"}
    runtime = set(kernel.runtime_values)
    tree = Tree.of(kernel)
    tried = "; ".join(", ".join(f"{k}={v}" for k, v in sorted(vals.items())) for vals in value_sets)
    for s in kernel.instructions():
        if id(s) in ran:
            continue
        guards = [a.cond for a in tree.chain(s) if isinstance(a, ir.If)]
        guards += [e for a in tree.chain(s) if isinstance(a, ir.For) for e in a.control_exprs()]
        if any(g.free_vars() & runtime for g in guards):
            reporter.warn(f"{s.op} never runs with the runtime values analysed ({tried}), so nothing orders "
                          "it; give values that reach it with --set NAME=VALUE", s.loc)


def _greedy(ctx: Context, reporter: Reporter) -> list[PlannedSync]:
    """One sync for each dependence that is not yet ordered, in `_edge_order`."""
    syncs: list[PlannedSync] = []
    next_event = VIRTUAL_BASE
    unordered, _ = ctx.check(syncs)
    for e in sorted(unordered, key=lambda e: _edge_order(ctx, e)):
        if not _still_unordered(ctx, syncs, e):
            continue
        placed = False
        fresh = candidates(ctx, e)
        before, _ = ctx.check(syncs)
        # First try widening an existing sync (set later, wait earlier) so one pair serves both,
        # as a hand-written kernel does; then a new sync.
        for i, merged in _merges(ctx, syncs, fresh):
            trial = syncs[:i] + [merged] + syncs[i + 1:]
            left, problems = ctx.check(trial)
            if e not in left and set(map(id, left)) <= set(map(id, before)) and \
                    all(p.kind == "unordered-reuse" for p in problems):
                syncs = trial
                placed = True
                break
        for cand in ([] if placed else fresh):
            cand.event = next_event
            trial = syncs + [cand]
            left, problems = ctx.check(trial)
            # A reused id may be made safe by syncs placed later; anything else is final.
            if e not in left and all(p.kind == "unordered-reuse" for p in problems):
                syncs = trial
                next_event += cand.slots
                placed = True
                break
        if not placed:
            reporter.warn(f"cannot order {e.kind.upper()} {e.what} ({e.src.op} at {e.src.loc.short} -> "
                          f"{e.dst.op}) with flags; using pipe_barrier(PIPE_ALL) before it", e.dst.loc)
            syncs.append(PlannedSync("barrier", "ALL", None, None, ctx.tree.child_of(
                ctx.tree.common_block(e.src, e.dst), e.dst), e, reason=f"{e.kind.upper()} {e.what}: fallback"))
    return _repair_reuse(ctx, syncs, next_event)


def _repair_reuse(ctx: Context, syncs: list[PlannedSync], next_event: int):
    """A flag reused across iterations must not be set again before its previous wait ran:
    order the consumer after that wait before the producer's next set (the hand-written
    reverse flag that returns the "credit")."""
    for _ in range(len(syncs) + 1):
        _, problems = ctx.check(syncs)
        reuse = [p for p in problems if p.kind == "unordered-reuse"]
        if not reuse:
            return syncs
        s = reuse[0].first
        loop = next((a for a in ctx.tree.chain(s.edge.src)[1:] if isinstance(a, ir.For)
                     and any(x is a for x in ctx.tree.chain(s.edge.dst))), None)
        credit = Edge(s.edge.dst, s.edge.src, {"war"}, loop, s.edge.what, s.edge.space)
        fixed = False
        for cand in candidates(ctx, credit):
            cand.event = next_event
            cand.reason = f"{s.edge.what} consumed: {cand.src} -> {cand.dst} (flag reuse)"
            _, after = ctx.check(syncs + [cand])
            if len([p for p in after if p.kind == "unordered-reuse"]) < len(reuse) and \
                    all(p.kind == "unordered-reuse" for p in after):
                syncs = syncs + [cand]
                next_event += cand.slots
                fixed = True
                break
        if not fixed:
            break
    _, problems = ctx.check(syncs)
    if problems:
        p = problems[0]
        raise PtoError(f"cannot make event reuse on {p.key[0]} -> {p.key[1]} safe", p.first.wait_at.loc)
    return syncs


def _merges(ctx: Context, syncs: list[PlannedSync], fresh: list[PlannedSync]):
    """(index, widened copy) of existing flags that could also order a new dependence."""
    order = ctx.tree.order
    for c in fresh:
        for i, s in enumerate(syncs):
            if s.kind != "flag" or (s.src, s.dst) != (c.src, c.dst) or s.reverse_loop is not c.reverse_loop \
                    or s.slot != c.slot or s.slots != c.slots or s.ahead is not None or c.ahead is not None:
                continue
            if ctx.tree.parent.get(id(s.set_at)) is not ctx.tree.parent.get(id(c.set_at)) or \
                    ctx.tree.parent.get(id(s.wait_at)) is not ctx.tree.parent.get(id(c.wait_at)):
                continue
            set_at = max(s.set_at, c.set_at, key=lambda x: order[id(x)])
            wait_at = min(s.wait_at, c.wait_at, key=lambda x: order[id(x)])
            if (set_at, wait_at) == (s.set_at, s.wait_at):
                continue
            if s.reverse_loop is None and order[id(set_at)] >= order[id(wait_at)]:
                continue
            reason = s.reason if c.edge.what in s.reason else s.reason.replace(
                s.edge.what, f"{s.edge.what}, {c.edge.what}", 1)
            yield i, replace(s, set_at=set_at, wait_at=wait_at, reason=reason)


def _full_barrier_instead(syncs: list[PlannedSync], pair, reporter: Reporter) -> list[PlannedSync]:
    """The last resort when a pipe pair cannot fit its flags: order one of its dependences by a
    local pipe_barrier(PIPE_ALL) instead, and say where."""
    victim = [s for s in syncs if s.kind == "flag" and (s.src, s.dst) == pair][-1]
    reporter.warn(f"more than {NUM_EVENT_IDS} events would be live on {pair[0]} -> {pair[1]}; ordering "
                  f"{victim.edge.what} with pipe_barrier(PIPE_ALL) here", victim.wait_at.loc)
    return [x for x in syncs if x is not victim] + [
        PlannedSync("barrier", "ALL", None, None, victim.wait_at, victim.edge,
                    reason=victim.reason + ": out of event ids")]


def pipe_graph(plan: SyncPlan) -> nx.MultiDiGraph:
    """Instructions, dependences and the syncs that order them, as one graph.

    Nodes: instruction uids (op, pipe, loc) and ("sync", n) for each planned sync (kind,
    pipes, event, reason). Edges: "dep" between instructions (kinds, operand, carrying loop)
    and "orders" from a sync's producer to the sync and from the sync to its consumer.
    """
    g = nx.MultiDiGraph(dependence_graph(plan.edges))
    for n, s in enumerate(plan.syncs):
        node = ("sync", n)
        g.add_node(node, kind=s.kind, src=s.src, dst=s.dst, event=s.event, slots=s.slots, reason=s.reason)
        g.add_edge(s.edge.src.uid, node, role="orders")
        g.add_edge(node, s.edge.dst.uid, role="orders")
    return g


def _internal(left, problems) -> str:
    parts = [f"{e.kind} {e.what} {e.src.op}@{e.src.loc.short}->{e.dst.op}@{e.dst.loc.short}" for e in left[:3]]
    parts += [f"{p.kind} {p.key}" for p in problems[:3]]
    return "internal error: the planned synchronization does not check out: " + "; ".join(parts)


def _still_unordered(ctx: Context, syncs, e: Edge) -> bool:
    hbs = [happens_before(ctx.stream(t, syncs), check_flags=False) for t in ctx.traces]
    return not ctx.edge_ordered(e, hbs)


def _edge_order(ctx: Context, e: Edge):
    """Cross-pipe before same-pipe; deeper blocks first; buffer-free (carried) edges before
    forward ones, since they make per-slot forward flags safe to reuse; by consumer position,
    latest producer first (one set after it covers the earlier ones)."""
    block = e.carrier.body if e.carrier is not None else ctx.tree.common_block(e.src, e.dst)
    depth = len(ctx.tree.chain(block))
    return (not e.cross_pipe, -depth, e.carrier is None, ctx.tree.order[id(e.dst)],
            -ctx.tree.order[id(e.src)], e.src.pipe, e.dst.pipe)


def _prune(ctx: Context, syncs: list[PlannedSync]) -> list[PlannedSync]:
    """Drop every sync that the others already imply."""
    kept = list(syncs)
    for s in reversed(syncs):
        trial = [x for x in kept if x is not s]
        left, problems = ctx.check(trial)
        if not left and not problems:
            kept = trial
    return kept


class EventsExhausted(PtoError):
    pass


def _allocate_events(ctx: Context, syncs: list[PlannedSync], reporter: Reporter) -> None:
    """Real event ids 0..7 per (src, dst) pair: syncs whose set..wait spans overlap in issue
    order get different ids. Ids are kept distinct across destinations of one source pipe
    when they fit (shared ids across destinations have been reported to hang hardware)."""
    flags = [s for s in syncs if s.kind == "flag"]
    spans: dict[int, list[tuple[int, int]]] = {id(s): [] for s in flags}
    for t in ctx.traces:
        stream = ctx.stream(t, flags)
        open_at: dict[tuple, int] = {}
        for i, it in enumerate(stream):
            if isinstance(it, DynSync) and it.kind in ("set", "wait"):
                key = (id(it.origin), it.event)
                if it.kind == "set":
                    open_at[key] = i
                elif key in open_at:
                    spans[id(it.origin)].append((open_at.pop(key), i))

    def overlap(a: PlannedSync, b: PlannedSync) -> bool:
        return any(s1 < e2 and s2 < e1 for s1, e1 in spans[id(a)] for s2, e2 in spans[id(b)])

    def assign(share: str) -> bool:
        """share: "none" (one id range per sync), "pair" (reuse within a pipe pair when the
        spans do not overlap), "source" (as "pair", but never across destinations)."""
        chosen: dict[int, range] = {}
        for s in flags:
            for base in range(NUM_EVENT_IDS - s.slots + 1):
                ids = range(base, base + s.slots)
                if all(_compatible(s, o, ids, chosen[id(o)], share, overlap) for o in flags if id(o) in chosen):
                    chosen[id(s)] = ids
                    break
            else:
                return False
        for s in flags:
            s.event = chosen[id(s)].start
        return True

    saved = {id(s): s.event for s in flags}
    fitted = False
    for share in ("source", "pair", "none"):
        if assign(share):
            fitted = True
            left, problems = ctx.check(syncs)
            if not left and not problems:
                return
        for s in flags:
            s.event = saved[id(s)]
    if fitted:
        left, problems = ctx.check(syncs)
        raise PtoError(_internal(left, problems), flags[0].edge.dst.loc)
    crowded = max({(f.src, f.dst) for f in flags}, key=lambda p: sum(f.slots for f in flags if (f.src, f.dst) == p))
    err = EventsExhausted(f"more than {NUM_EVENT_IDS} live events on {crowded[0]} -> {crowded[1]}")
    err.pair = crowded
    raise err


def _compatible(s: PlannedSync, o: PlannedSync, ids: range, o_ids: range, share: str, overlap) -> bool:
    if o.src != s.src or not set(ids) & set(o_ids):
        return True
    if o.dst != s.dst:
        return share != "source"
    return share != "none" and not overlap(s, o)


def default_value_sets(kernel: ir.Kernel, given: dict | None = None) -> list[dict]:
    """Runtime values to analyse with: the sync must hold for every trip count, so try a few,
    and the values the user gave."""
    if not kernel.runtime_values:
        return [{}]
    # get_block_num() is at least 1 and above get_block_idx() (a grid-stride step is never 0).
    sets = [{v: n + 1 if v == "block_num" else n for v in kernel.runtime_values} for n in (0, 1, 2, 5)]
    if given:
        sets.append({v: given.get(v, 1) for v in kernel.runtime_values})
    return sets


# ---------------------------------------------------------------- emission


def _event_text(s: PlannedSync, names: dict[str, str], slot_value: int | None = None, wait: bool = False) -> str:
    slot_expr = s.wait_slot if wait and s.wait_slot is not None else s.slot
    if slot_expr is None:
        return f"EVENT_ID{s.event}"
    if slot_value is not None:
        return f"EVENT_ID{s.event + slot_value}"
    slot = cpp_text(slot_expr, names)
    if slot.startswith("(") and slot.endswith(")"):
        slot = slot[1:-1]
    return f"(event_t)({slot} + {s.event})" if s.event else f"(event_t)({slot})"


def sync_insertions(kernel: ir.Kernel, plan: SyncPlan, main: str) -> list[Insertion]:
    """Insert-only edits for the planned syncs, each with a short reason."""
    names = {s.var: s.cpp_var for s in ir.walk(kernel.body) if isinstance(s, ir.For) and s.cpp_var}
    out: list[tuple[ir.Stmt, Insertion]] = []

    def pipe(p: str) -> str:
        return f"PIPE_{p}"

    def at(stmt: ir.Stmt, where: str, code: str, reason: str, order: int) -> None:
        out.append((stmt, _at(stmt, where, code, reason, main, order)))

    for s in plan.syncs:
        if s.kind == "barrier":
            reason = s.reason if s.src != "ALL" else s.reason + " (cannot be ordered with flags)"
            at(s.wait_at, "before", f"pipe_barrier({pipe(s.src)})", reason, 1)
            continue
        args = f"{pipe(s.src)}, {pipe(s.dst)}"
        at(s.set_at, "after", f"set_flag({args}, {_event_text(s, names)})", s.reason, 2)
        at(s.wait_at, "before", f"wait_flag({args}, {_event_text(s, names, wait=True)})", s.reason, 0)
        what = ", ".join(s.operands[:3]) if s.operands else s.edge.what
        if s.ahead is not None:
            # The first iteration's slot is primed (its producer runs before the loop); the slot
            # produced in the last iteration is drained.
            (first,), (last,) = s.event_ids({}, "before"), s.event_ids({}, "after")
            at(s.prime_at, "before", f"set_flag({args}, EVENT_ID{first})",
               f"prime: {what} of the first iteration ({s.src} -> {s.dst})", 3)
            at(s.prime_at, "after", f"wait_flag({args}, EVENT_ID{last})",
               f"drain: {what} produced by the last iteration ({s.src} -> {s.dst})", 4)
        elif s.prime_at is not None:
            for k in range(s.slots):
                evk = _event_text(s, names, k if s.slot is not None else None)
                at(s.prime_at, "before", f"set_flag({args}, {evk})",
                   f"prime: {what} free at start ({s.src} -> {s.dst})", 3)
                at(s.prime_at, "after", f"wait_flag({args}, {evk})", f"drain: {what} ({s.src} -> {s.dst})", 4)
    _check_shared_helpers(out)
    return _dedupe([ins for _, ins in out])


def _check_shared_helpers(out: list[tuple[ir.Stmt, Insertion]]) -> None:
    """A helper inlined at several call sites has one source text: every inlined copy must
    need the same lines at the same place, or the edit would be wrong for some of them."""
    by_place: dict[tuple[int, str], dict[int, set[str]]] = {}
    stmts: dict[int, ir.Stmt] = {}
    for stmt, ins in out:
        by_place.setdefault((ins.anchor, ins.where), {}).setdefault(id(stmt), set()).add(ins.code)
        stmts[id(stmt)] = stmt
    for per_copy in by_place.values():
        if len(per_copy) > 1 and len({frozenset(v) for v in per_copy.values()}) > 1:
            stmt = stmts[next(iter(per_copy))]
            raise PtoError("this statement is in a helper inlined at several call sites that need different "
                           "synchronization inside it; inline the helper by hand or give each call its own "
                           "helper", stmt.loc)


def _at(stmt: ir.Stmt, where: str, code: str, reason: str, main: str, order: int) -> Insertion:
    # A block of the function itself (the live branch of `if constexpr`, a `{ ... }` scope)
    # starts on the line of its `{`, which may be `} else {`: write next to its first or last
    # statement instead, inside the block.
    while isinstance(stmt, ir.Block) and not stmt.inlined and stmt.stmts:
        stmt = stmt.stmts[0] if where == "before" else stmt.stmts[-1]
    loc = stmt.loc
    if loc.file != main:
        raise PtoError(f"synchronization is needed inside {loc.file}, which ptorewrite does not edit; "
                       "move the helper into the kernel file", loc)
    return Insertion.at(loc, where, code, reason, order)


def _dedupe(ins: list[Insertion]) -> list[Insertion]:
    seen = set()
    out = []
    for i in ins:
        key = (i.anchor, i.where, i.code)
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out


def conservative_insertions(kernel: ir.Kernel, main: str) -> list[Insertion]:
    """A full barrier after every instruction: a baseline for comparison and bisecting only."""
    return _dedupe([_at(s, "after", "pipe_barrier(PIPE_ALL)", "conservative baseline", main, 0)
                    for s in kernel.instructions()])

