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

This module finds where that form applies, for the memory report: the plan keeps each
declaration's own index (the sync planner keys a flag by a counter of one declaration only,
`sync_model.counted_candidate`), and the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptorewrite.analysis import ir
from ptorewrite.transform import multibuffer
from ptorewrite.transform.memplan import MemoryPlan, TilePlacement


@dataclass
class SharedRegion:
    lanes: TilePlacement  # the lane loop's tile, one copy per lane
    after: TilePlacement  # the tile that follows the lane loop in the same step, over those copies
    loop: ir.For  # the loop whose every step runs both
    copies: tuple[int, ...]  # the lane copies `after` lies on

    def line(self) -> str:
        a, q = self.after, self.lanes
        on = (f"copy {self.copies[0]}" if len(self.copies) == 1
              else "copies " + " and ".join(str(c) for c in self.copies))
        now = (f"{a.name} single" if not a.tile.count else f"{a.name}'s copy the step modulo {len(a.addresses)}")
        return (f"  {a.name} over {q.label}'s {on} ({a.buffer} 0x{q.start:x}-0x{q.end - 1:x}) after its lane "
                f"loop, in the loop at {self.loop.loc.short}: each keeps its own index ({q.name}'s copy its lane, "
                f"{now}); one counter stepped at both declarations would give {a.name} the copy the last lane did "
                f"not use and free each copy with one flag, but the sync planner keys a flag by one declaration's "
                f"counter only")


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
        if loop is None or loop.kind != "for":
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


def _child_index(block: ir.Block, s: ir.Stmt, parents: dict[int, ir.Stmt]) -> int | None:
    """The index in `block` of the statement that holds s, or None when s is not inside it."""
    child, p = s, parents.get(id(s))
    while p is not None and p is not block:
        child, p = p, parents.get(id(p))
    if p is None:
        return None
    return next(i for i, x in enumerate(block.stmts) if x is child)
