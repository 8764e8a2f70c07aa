"""What a planned sync is, and where one can go: the candidates for ordering one dependence.

Candidates, most precise first (see docs/design.md, "Sync insertion"):
- forward: set right after the statement holding the producer, wait right before the one
  holding the consumer, at the level of a block that holds both;
- buffer free (reverse): carried by a loop whose consumer comes first in the body: waited
  before the consumer, set after the producer, primed before the outermost loop of the
  function and drained after it;
- per-slot event ids when both ends index one tile array with the same expression;
- produced one iteration ahead when they index it with shifted slots (software pipelining);
- same pipe: a pipe_barrier before the consumer, where the architecture needs one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ptorewrite.analysis import ir
from ptorewrite.analysis.abstract import Compiled, is_known
from ptorewrite.analysis.deps import Edge
from ptorewrite.analysis.expr import Const, Expr, UnboundValue, binop


@dataclass(eq=False)
class PlannedSync:
    kind: str  # "flag" or "barrier"
    src: str  # source pipe (the barrier's pipe, "ALL" for a full barrier)
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

    def id_expr(self, wait: bool) -> Expr | None:
        """The slot part of the event id at the set (or the wait); None: the base id alone."""
        return self.wait_slot if wait and self.wait_slot is not None else self.slot

    def boundary_ids(self, where: str) -> list[Expr]:
        """Event ids primed ("before") or drained ("after"): every slot, or for a sync produced
        one iteration ahead the consumer's slot of the first iteration / of the one after the
        last (expressions of the enclosing loops' variables)."""
        if self.ahead is None:
            return [Const(self.event + k) for k in range(self.slots)]
        loop = self.ahead
        start, step, trips = int(loop.start.eval({})), int(loop.step.eval({})), loop.trip_count()
        index = start if where == "before" else start + trips * step
        return [binop("+", self.wait_slot.subst({loop.var: Const(index)}), Const(self.event))]


class BadEventId(Exception):
    """A planned sync's event id is not one known value at some point where it is issued."""


_COMPILED: dict[int, Compiled] = {}


def event_value(e: Expr, env: dict, forced=frozenset()) -> int:
    c = _COMPILED.get(id(e))
    if c is None or c.expr is not e:
        if len(_COMPILED) > 100_000:
            _COMPILED.clear()
        c = _COMPILED[id(e)] = Compiled(e)
    try:
        v = c(env, forced)
    except UnboundValue as u:
        raise BadEventId(u.name) from None
    if not is_known(v) or isinstance(v, bool) or not isinstance(v, int):
        raise BadEventId(str(e))
    return v


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
        stack: list[tuple[ir.Stmt, ir.Stmt | None]] = [(kernel.body, None)]
        while stack:
            s, p = stack.pop()
            order[id(s)] = len(order)
            if p is not None:
                parent[id(s)] = p
            kids = s.stmts if isinstance(s, ir.Block) else [s.body] if isinstance(s, ir.For) else \
                [s.then] + ([s.other] if s.other is not None else []) if isinstance(s, ir.If) else []
            stack.extend((k, s) for k in reversed(kids))
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

    def loops_around(self, s: ir.Stmt) -> list[ir.For]:
        return [a for a in self.chain(s)[1:] if isinstance(a, ir.For)]


# ---------------------------------------------------------------- candidates


def root(ref: ir.TileRef) -> tuple[ir.TileDecl, Expr | None]:
    while ref.tile.alias is not None:
        ref = ref.tile.alias.base
    return ref.tile, ref.index


def root_tiles(s: ir.Instr) -> set[int]:
    return {id(root(a.value)[0]) for a in s.tile_args}


def barrier_candidate(tree: Tree, e: Edge) -> PlannedSync:
    block = e.carrier.body if e.carrier is not None else tree.common_block(e.src, e.dst)
    b = tree.child_of(block, e.dst)
    return PlannedSync("barrier", e.src.pipe, None, None, b, e,
                       reason=f"{e.kind.upper()} {e.what}: {e.src.op} -> {e.dst.op} on PIPE_{e.src.pipe}")


def candidates(tree: Tree, e: Edge, one_id: bool, ahead_ok) -> list[PlannedSync]:
    """Ways to order one cross-pipe dependence with a flag, most precise first.

    Levels run from the innermost block holding both ends out to the body of the loop that
    carries the dependence. At each level the ends are the statements of that block that
    contain them: if the producer's comes first, a forward flag; otherwise a reverse flag of
    that block's loop, primed before the outermost loop of the function. A reverse flag of an
    inner loop also orders the producer's run before the consumer's next run, because its prime
    and drain are hoisted and its per-slot flags chain across runs. Each is tried with per-slot
    event ids (unless `one_id`), then with one id. `ahead_ok(e, a, b)` vets a flag produced one
    iteration ahead.
    """
    outer = e.carrier.body if e.carrier is not None else None
    levels: list[ir.Block] = []
    block = tree.common_block(e.src, e.dst)
    while True:
        levels.append(block)
        if outer is None or block is outer:
            break
        block = next(x for x in tree.chain(block)[1:] if isinstance(x, ir.Block))
    out: list[PlannedSync] = []
    pipes = f"{e.src.pipe} -> {e.dst.pipe}"
    for block in levels:
        a = tree.child_of(block, e.src)
        b = tree.child_of(block, e.dst)
        forward = a is not b and tree.order[id(a)] < tree.order[id(b)]
        loop = tree.parent.get(id(block))
        if not forward and not isinstance(loop, ir.For):
            continue
        if a is not b and e.carrier is not None and loop is e.carrier and not one_id:
            ahead = produced_ahead(tree, e, a, b, ahead_ok)
            if ahead is not None:
                out.append(ahead)
        for slotted in (True, False):
            if slotted and one_id:
                continue
            slot, slots = slot_of(e) if slotted else (None, 1)
            if slotted and slot is None:
                continue
            if slot is not None and not slot.free_vars() <= (tree.visible_vars(a) & tree.visible_vars(b)):
                continue  # the slot is not expressible where the flags go
            if forward:
                out.append(PlannedSync("flag", e.src.pipe, e.dst.pipe, a, b, e, slot=slot, slots=slots,
                                       reason=f"{e.kind.upper()} {e.what}: {pipes}"))
            else:
                out.append(PlannedSync("flag", e.src.pipe, e.dst.pipe, a, b, e, reverse_loop=loop,
                                       prime_at=tree.outermost_loop_holding(loop), slot=slot, slots=slots,
                                       reason=f"{e.kind.upper()} {e.what}: {pipes} (next iteration)"))
    return out


def credit_candidates(tree: Tree, s: PlannedSync, one_id: bool) -> list[PlannedSync]:
    """Flags back from the destination pipe of `s` to its source that order each wait of `s`
    before its next set: set right after the statement the wait precedes, waited right before
    the statement the set follows (the hand-written reverse flag that returns the "credit").
    Levels run out from the innermost block holding both; where the wait's statement comes
    first, a forward flag in the same iteration, else a reverse flag of that block's loop."""
    a, b = s.wait_at, s.set_at
    out: list[PlannedSync] = []
    block = tree.common_block(a, b)
    while True:
        ca, cb = tree.child_of(block, a), tree.child_of(block, b)
        forward = ca is not cb and tree.order[id(ca)] < tree.order[id(cb)]
        loop = tree.parent.get(id(block))
        for slotted in (True, False):
            slot = s.id_expr(True) if slotted and s.ahead is None else None
            if slotted and (one_id or slot is None):
                continue
            if slot is not None and not slot.free_vars() <= (tree.visible_vars(ca) & tree.visible_vars(cb)):
                continue
            slots = s.slots if slot is not None else 1
            reason = f"{s.edge.what} consumed: {s.dst} -> {s.src} (flag reuse)"
            if forward:
                out.append(PlannedSync("flag", s.dst, s.src, ca, cb, s.edge, slot=slot, slots=slots, reason=reason))
            elif isinstance(loop, ir.For):
                out.append(PlannedSync("flag", s.dst, s.src, ca, cb, s.edge, reverse_loop=loop,
                                       prime_at=tree.outermost_loop_holding(loop), slot=slot, slots=slots,
                                       reason=reason))
        up = next((x for x in tree.chain(block)[1:] if isinstance(x, ir.Block)), None)
        if up is None:
            return out
        block = up


def produced_ahead(tree: Tree, e: Edge, a: ir.Stmt, b: ir.Stmt, ahead_ok) -> PlannedSync | None:
    """A dependence between consecutive iterations whose two ends index one tile array with
    slots shifted by the loop variable (software pipelining: iteration i loads the slot
    iteration i + 1 computes on, and frees the slot iteration i + 1 loads into). Per-slot flags
    with the producer's slot at the set and the consumer's at the wait make the consumer wait
    for the instance one iteration earlier, not for the one just issued. Only the first
    iteration's slot is primed and only the last one's drained, since every other set is
    consumed by the next iteration. The loop needs a known trip count (the drained id)."""
    loop = e.carrier
    if loop.trip_count() is None or any(
            _ordinal(inst.dst, loop) - _ordinal(inst.src, loop) != 1 for inst in e.instances):
        return None
    pair = slot_pair(e)
    if pair is None:
        return None
    produced, consumed, slots = pair
    used = produced.free_vars() | consumed.free_vars()
    if loop.var not in used or produced == consumed:
        return None  # the same slot in both: a plain per-slot flag
    if not used <= {x.var for x in tree.loops_around(a) + [loop]}:
        return None  # shifted slots are recognised for loop-variable indices only
    if not used <= (tree.visible_vars(a) & tree.visible_vars(b)):
        return None
    s = PlannedSync("flag", e.src.pipe, e.dst.pipe, a, b, e, prime_at=loop, slot=produced, slots=slots,
                    wait_slot=consumed, ahead=loop,
                    reason=f"{e.kind.upper()} {e.what}: {e.src.pipe} -> {e.dst.pipe} (produced one iteration ahead)")
    return s if ahead_ok(s) else None


def _ordinal(op, loop: ir.For) -> int:
    return next(k for lid, k in op.iters if lid == id(loop))


def _slot_pairs(e: Edge):
    """(producer's index, consumer's index, slots) for each way the two ends index one tile array
    with non-constant indices."""
    for da in e.dst.tile_args:
        if da.text != e.what:
            continue
        tile, index = root(da.value)
        if index is None or index.is_const or tile.count is None:
            continue
        for sa in e.src.tile_args:
            st, sidx = root(sa.value)
            if st is tile and sidx is not None and not sidx.is_const:
                yield sidx, index, tile.count


def slot_pair(e: Edge) -> tuple[Expr, Expr, int] | None:
    """The producer's and the consumer's index into one tile array, when both are slots."""
    return next(_slot_pairs(e), None)


def slot_of(e: Edge) -> tuple[Expr | None, int]:
    """Event ids per slot when both ends index one tile array with the same expression."""
    return next(((index, count) for sidx, index, count in _slot_pairs(e) if sidx == index), (None, 1))
