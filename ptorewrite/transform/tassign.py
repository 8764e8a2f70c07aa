"""TASSIGN lines that bind every planned tile to its address, right after its declaration.

One line per slot (`TASSIGN(x[1], 0x4000);  // UB 16 KiB`), or with `checked` pto-isa's
compile-time form `TASSIGN<0x4000>(x[1]);`. A per-lane tile (one declaration inside a
MultiBuffered body, one copy per lane) gets one line whose address depends on the lane:
`TASSIGN(bMat, 0x20000 + panel.bufferId * 0x20000)`. Aliases get none: TRESHAPE/TSUBVIEW give
them their base's address. Slots the input already placed keep their own TASSIGN.
"""

from __future__ import annotations

from ptorewrite.analysis import ir
from ptorewrite.diagnostics import PtoError
from ptorewrite.parse.invocation import is_bundled
from ptorewrite.transform.edits import Insertion
from ptorewrite.transform.memplan import MemoryPlan, TilePlacement, fmt_bytes


def tassign_insertions(kernel: ir.Kernel, plan: MemoryPlan, checked: bool = False) -> list[Insertion]:
    out: list[Insertion] = []
    counted: set[tuple[int, str]] = set()
    for p in sorted(plan.placements, key=lambda p: (p.tile.loc.file, p.tile.loc.offset)):
        if p.tile.per_lane and counts_calls(p.tile) and (p.tile.counter_block, p.tile.lane_text) not in counted:
            counted.add((p.tile.counter_block, p.tile.lane_text))
            out += _counter_lines(kernel, plan, p)
    for p in plan.placements:
        free = [s for s in range(len(p.addresses)) if s not in p.fixed_slots]
        if not free:
            continue
        decl = p.tile.loc
        if kernel.cluster is not None and id(p.tile) in kernel.cluster.made:
            # A tile the lowering made (a FIFO's slot or entry view): it has no name in the source.
            raise PtoError(f"auto2manual would have to place '{p.name}', a tile the cross-core operation here "
                           "makes itself, which has no name in the source to write a TASSIGN for", decl)
        if decl.file != kernel.file and is_bundled(decl.file):
            raise PtoError(f"'{p.name}' is declared in {decl.file}, a header bundled with ptorewrite, which it "
                           "does not edit, so it cannot place this tile", decl)
        # A tile declared in a header of the user's gets its line there (transform.header_edits).
        if p.tile.per_lane:
            # TASSIGN<addr> needs a constant; a copy index counted across loop runs is not one.
            constant = checked and p.tile.lane_constexpr
            note = "" if constant or not checked else "; address varies by iteration, so not TASSIGN<>"
            if p.tile.lane_at is not None:
                # Multi-buffered by ptorewrite: every iteration moves the tile to its copy.
                first = p.tile.lane_moved_at or p.tile.lane_at.stmts[0]
                what = "the copy its counter names" if p.tile.lane_moved_at else "one copy per iteration"
                out.append(Insertion.at(_first_line_stmt(first).loc, "before", _per_lane_line(kernel, plan, p, False),
                                        f"{p.buffer} {len(p.addresses)} x {fmt_bytes(p.nbytes)}, {what} "
                                        "(multi-buffered)"))
                continue
            out.append(Insertion.at(decl, "after", _per_lane_line(kernel, plan, p, constant),
                                 f"{p.buffer} {len(p.addresses)} x {fmt_bytes(p.nbytes)}, one per lane{note}"))
            continue
        for order, slot in enumerate(free):
            ref = f"{p.name}[{slot}]" if p.tile.count else p.name
            out.append(Insertion.at(decl, "after", _tassign(ref, f"0x{p.addresses[slot]:x}", checked),
                                 f"{p.buffer} {fmt_bytes(p.nbytes)}", order=order))
    return out


def _tassign(ref: str, addr: str, checked: bool) -> str:
    return f"TASSIGN<{addr}>({ref})" if checked else f"TASSIGN({ref}, {addr})"


def _per_lane_line(kernel: ir.Kernel, plan: MemoryPlan, p: TilePlacement, checked: bool) -> str:
    base, stride = p.addresses[0], p.stride
    if p.fixed_slots or any(a != base + i * stride for i, a in enumerate(p.addresses)):
        raise PtoError(f"per-lane tile '{p.name}' is not laid out with one stride; cannot place it with one "
                       "TASSIGN line", p.tile.loc)
    if not p.tile.lane_text or not (counts_calls(p.tile) or _declared_in_lane_body(kernel, p.tile)):
        raise PtoError(f"per-lane tile '{p.name}' is declared outside the MultiBuffered body that gives it "
                       "its lanes (in a helper it calls?); its lane cannot be named there: declare it in the "
                       "body, or as an array indexed by the lane", p.tile.loc)
    lane = f"{p.tile.lane_text} * 0x{stride:x}"
    return _tassign(p.name, f"0x{base:x} + {lane}" if base else lane, checked)


def counts_calls(tile: ir.TileDecl) -> bool:
    """A helper's tile whose copy is the helper's running count of its executions."""
    return bool(tile.counter_block) and tile.lane_at is None


def _counter_lines(kernel: ir.Kernel, plan: MemoryPlan, p: TilePlacement) -> list[Insertion]:
    """The helper's counter, before the first declaration that uses it: a function static (one
    per instantiation of the helper) stepped each time the block runs, so that consecutive calls
    take the copies in turn."""
    name, n = p.tile.lane_text, p.tile.count or 1
    users = sorted({q.name for q in plan.placements if q.tile.per_lane and q.tile.counter_block == p.tile.counter_block
                    and q.tile.lane_text == name})
    return [
        Insertion.at(p.tile.loc, "before", f"static uint32_t {name} = {n - 1}",
                     f"copy of {', '.join(users)} this call uses: one counter per instantiation", order=-2),
        Insertion.at(p.tile.loc, "before", f"{name} = ({name} + 1) % {n}",
                     "each call takes the next copy, so its loads overlap the previous call's use", order=-1),
    ]


def _first_line_stmt(s: ir.Stmt) -> ir.Stmt:
    """The statement a line goes before: the first one of a nested `{ ... }` scope, or of a body
    the lowering wrapped in an `if` of its own (the guard a `break` or `continue` sets, which
    spans the same braces: it has no text to go before)."""
    while True:
        if isinstance(s, ir.Block) and not s.inlined and s.stmts:
            # Skip the flag resets the lowering puts at the top of such a body (no text either).
            s = next((x for x in s.stmts if not (isinstance(x, ir.Assign) and x.loc == s.loc)), s.stmts[0])
        elif isinstance(s, ir.If) and s.other is None and s.then.loc == s.loc and s.then.stmts:
            s = s.then
        else:
            return s


def _declared_in_lane_body(kernel: ir.Kernel, tile: ir.TileDecl) -> bool:
    if tile.lane_at is not None:
        return True
    for s in ir.walk(kernel.body):
        if isinstance(s, ir.For) and s.body.uid == tile.scope and (s.kind == "MultiBuffered" or tile.lane_text):
            body = s.body.loc
            return body is not None and body.file == tile.loc.file and \
                body.offset <= tile.loc.offset < body.end_offset
    return False
