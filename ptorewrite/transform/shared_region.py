"""Regions two declarations take in turn in one loop: a lane loop's copies and a tile after it.

In pto-isa's a2a3 AUTO flash attention every step of the main loop runs a MultiBuffered lane
loop over the softmax slice (`qkVecTile`, two copies, one per lane) and then loads the update
tile (`pvVecTile`), which the memory plan lays over one of the slice's copies: UB holds no
third copy. Each declaration then picks its copy by its own index (the lane's step; a single
tile, or the outer loop's step), so the next step's first lane loads into the bytes this step's
update reads and waits for the whole update. An expert steps ONE index over both declarations
(pto-isa's hand-written kernel does): the update takes the copy the last lane did not use, the
next lane the other one, and one flag per copy frees it for its next load, whichever
declaration used it last. tests/kernels/shared_region/lanes_then_update.target.cpp is that
form of tests/kernels/shared_region/lanes_then_update.cpp, checked and verified for 0 to 3 steps
and 1 to 5 lanes (docs/design.md, "One index over a lane loop and the tile after it").

This module finds where that form applies and makes the counter (`share_counter`); the rewrite
keeps it when the plan with it holds and gives the lane copies a flag each
(`rewrite._shared_counters`), and `--memory-report` says which was chosen and why. The next
step's lanes then wait for the update's read only in the first lane that loads its copy
(`sync_model.first_use_candidates`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ptorewrite.analysis import ir
from ptorewrite.transform import multibuffer
from ptorewrite.transform.memplan import MemoryPlan, TilePlacement


@dataclass
class SharedRegion:
    lanes: TilePlacement  # the lane loop's tile, one copy per lane
    after: TilePlacement  # the tile that follows the lane loop in the same step, over those copies
    loop: ir.For  # the loop whose every step runs both
    copies: tuple[int, ...]  # the lane copies `after` lies on
    note: str = ""  # why one counter was not given, when it was tried
    made: bool = False  # both declarations take their copy from one counter

    def line(self) -> str:
        a, q = self.after, self.lanes
        on = (f"copy {self.copies[0]}" if len(self.copies) == 1
              else "copies " + " and ".join(str(c) for c in self.copies))
        head = (f"  {a.name} over {q.label}'s {on} ({a.buffer} 0x{q.start:x}-0x{q.end - 1:x}) after its lane loop, "
                f"in the loop at {self.loop.loc.short}: ")
        if self.made:
            return head + (f"one counter '{q.tile.lane_text}' stepped at both declarations: {a.name} takes the copy "
                           f"the last lane did not use, the next lane the other one")
        return head + f"each keeps its own index; one counter over both {self.note or 'was not tried'}"


def shared_regions(kernel: ir.Kernel, plan: MemoryPlan) -> list[SharedRegion]:
    """Every pair (a tile declared in a MultiBuffered body, a tile the same step of an enclosing
    loop uses after that lane loop) that the memory plan lays on the same copies: the second
    lies exactly on copies of the first and is no larger than one; neither carries a value from
    one run to the next (the lane tile is declared in the lane body, a fresh tile every lane; the
    other is declared in the step or, on every path of it, written whole before it is read)."""
    parents = multibuffer._parents(kernel)
    lane_loops = {s.body.uid: s for s in ir.walk(kernel.body) if isinstance(s, ir.For) and s.kind == "MultiBuffered"}
    users: dict[int, list[ir.Instr]] = {}
    for s in kernel.instructions():
        for a in s.tile_args:
            users.setdefault(id(a.value.tile), []).append(s)
    out: list[SharedRegion] = []
    for q in plan.placements:
        lane = lane_loops.get(q.tile.scope)
        if not q.tile.per_lane or len(q.addresses) < 2 or lane is None or q.fixed_slots or q.tile.lane_at is not None:
            continue
        loop = next(iter(multibuffer._loops_around(lane, parents)), None)
        if loop is None or loop.kind != "for" or not _own_text(kernel, loop, lane, parents):
            continue
        lane_at = _child_index(loop.body, lane, parents)
        for p in plan.placements:
            if p is q or p.buffer != q.buffer or p.fixed_slots or p.nbytes > q.nbytes or p.tile.alias is not None:
                continue
            if not set(p.addresses) <= set(q.addresses):
                continue
            uses = [u for m in p.members for u in users.get(id(m), [])]
            if not uses or len(p.members) > 1:
                continue
            at = [_child_index(loop.body, u, parents) for u in uses]
            if any(i is None or lane_at is None or i <= lane_at for i in at):
                continue
            if p.tile.scope != loop.body.uid and multibuffer._first_access(loop.body.stmts, p.tile).kind == "r":
                continue
            copies = tuple(sorted(q.addresses.index(a) for a in p.addresses))
            out.append(SharedRegion(q, p, loop, copies))
    return out


def _own_text(kernel: ir.Kernel, loop: ir.For, lane: ir.For, parents: dict[int, ir.Stmt]) -> bool:
    """The loop and its lane loop are the kernel's own text, run by one IR loop each (not inlined
    from a helper, not a lane body lowered once per phase): lines placed there are this kernel's
    alone and the counter they step is the one the plan follows."""
    if loop.loc.file != kernel.file or lane.loc.file != kernel.file:
        return False
    p = parents.get(id(loop))
    while p is not None:
        if isinstance(p, ir.Block) and p.inlined:
            return False
        p = parents.get(id(p))
    same = [s for s in ir.walk(kernel.body) if isinstance(s, ir.For) and s.loc == lane.loc]
    return len(same) == 1


def _child_index(block: ir.Block, s: ir.Stmt, parents: dict[int, ir.Stmt]) -> int | None:
    """The index in `block` of the statement that holds s, or None when s is not inside it."""
    child, p = s, parents.get(id(s))
    while p is not None and p is not block:
        child, p = p, parents.get(id(p))
    if p is None:
        return None
    return next(i for i, x in enumerate(block.stmts) if x is child)


def share_counter(kernel: ir.Kernel, region: SharedRegion, name: str):
    """Index both declarations of `region` with one counter `name` (IR scalar): set to
    `copies - 1` just before the loop, stepped at the start of every lane body and just before the
    step's first statement that uses the tile after the lane loop. Returns (undo, the counter's
    lines as (statement, "before", text, reason) for the emitter)."""
    from ptorewrite.analysis.expr import Const, Var, binop

    parents = multibuffer._parents(kernel)
    q, p, loop = region.lanes.tile, region.after.tile, region.loop
    n = len(region.lanes.addresses)
    lane = next(s for s in ir.walk(loop.body) if isinstance(s, ir.For) and s.body.uid == q.scope)
    holder = parents[id(loop)]
    uses = [u for u in kernel.instructions() if any(a.value.tile is p for a in u.tile_args)]
    first = min(_child_index(loop.body, u, parents) for u in uses)
    at = loop.body.stmts[first]
    index = Var(name)
    step = lambda: ir.Assign(name, binop("%", binop("+", Var(name), Const(1)), Const(n)), loop.loc)
    start = ir.Assign(name, Const(n - 1), loop.loc)
    saved = [(t, t.count, t.per_lane, t.lane_text, t.lane_constexpr, t.lane_at, t.lane_moved_at) for t in (q, p)]
    # The lane loop's own index of the lane tile's copy, before the counter replaces it: a flag
    # whose ends are in one lane may still take its id by lane where the counter has no name
    # (inside a helper the lane body calls; sync_model.slot_variants).
    lane_index = next((a.value.index for s in kernel.instructions() for a in s.args
                       if a.kind == "tile" and a.value.tile is q and a.value.index is not None), None)
    added = [(holder, start), (lane.body, step()), (loop.body, step())]
    holder.stmts.insert(next(i for i, x in enumerate(holder.stmts) if x is loop), start)
    lane.body.stmts.insert(0, added[1][1])
    loop.body.stmts.insert(first, added[2][1])
    changed = []
    for t in (q, p):
        t.count, t.per_lane, t.lane_constexpr, t.lane_text = n, True, False, name
        t.shared_counter = name  # sync_model.candidates prefers its ids
    q.lane_index = lane_index
    p.lane_at, p.lane_moved_at = loop.body, at  # the TASSIGN goes just before its first use, after the step
    for s in kernel.instructions():
        if any(a.kind == "tile" and a.value.tile in (q, p) for a in s.args):
            changed.append((s, s.args))
            s.args = tuple(replace(a, value=ir.TileRef(a.value.tile, index))
                           if a.kind == "tile" and a.value.tile in (q, p) else a for a in s.args)

    # Views made of them (TRESHAPE/TSUBVIEW, a FIFO's strips) take their bytes from the copy
    # the tile is at when the view is made: the counter's too.
    views = []
    for s in ir.walk(kernel.body):
        if isinstance(s, ir.AliasDef) and s.src.tile in (q, p):
            views.append((s, s.src))
            s.src = ir.TileRef(s.src.tile, index)
    bases = []
    for t in kernel.tiles:
        if t.alias is not None and t.alias.base.tile in (q, p):
            bases.append((t, t.alias))
            t.alias = replace(t.alias, base=ir.TileRef(t.alias.base.tile, index))

    def undo() -> None:
        for t, alias in reversed(bases):
            t.alias = alias
        for s, src in reversed(views):
            s.src = src
        for t, count, per_lane, lane_text, constexpr, lane_at, moved in saved:
            t.shared_counter = ""
            t.lane_index = None
            t.count, t.per_lane, t.lane_text, t.lane_constexpr = count, per_lane, lane_text, constexpr
            t.lane_at, t.lane_moved_at = lane_at, moved
        for s, args in reversed(changed):
            s.args = args
        for block, stmt in added:
            block.stmts[:] = [x for x in block.stmts if x is not stmt]
    why = f"copy of {region.lanes.name} and {region.after.name} the last declaration took: one counter over both"
    lines = [(loop, f"uint32_t {name} = {n - 1}", why),
             (None, f"{name} = ({name} + 1) % {n}", "each lane takes the next copy"),
             (at, f"{name} = ({name} + 1) % {n}", f"{region.after.name} takes the copy the last lane did not use")]
    return undo, lines
