"""Automatic multi-buffering: a single tile that each iteration of a loop writes afresh becomes N
copies, one per iteration modulo N, so the next iteration's load need not wait for this
iteration's readers.

A tile qualifies in a loop when
- it is one tile (not an array, not placed by hand, nothing aliases it) and every instruction
  that touches it lies in the loop's body;
- each iteration writes it before anything reads it: it is declared in the body, or along every
  path through the body the first access to it is a whole write (TINSERT writes a window: it
  does not count) or there is none. Paths go through blocks (inlined helpers, MultiStaged stage
  lambdas), both branches of an `if` decided at run time, the live branch of one decided by a
  constant, and inner loops, which write for sure only when they run a constant number of
  times, at least once (`_first_access`);
- instructions of two or more pipes touch it (otherwise nothing can overlap);
- the loop is counted with a known start and step.
Then no value flows through the tile from one iteration to the next, and giving iteration k the
copy k modulo N changes no result (nor is the copies' lifetime widened over the loop, see
analysis.liveness). In the IR the tile becomes a per-lane tile (as a tile declared
in a `MultiBuffered` body is): N copies, indexed by `((var - start) / step) % N`. In the source it
keeps its declaration; one TASSIGN per iteration moves it to its copy (`transform.tassign`), and
the sync planner gives each copy its own event id. Copies that do not fit are not made: the
planner tries the tiles one at a time, in declaration order, and keeps what the memory plan
accepts (and transform.rewrite drops, one at a time, those whose synchronization would need a
full barrier or gets one event id for every copy).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import BinOp, Const, Expr, Var, binop, cpp_text, try_eval
from ptorewrite.analysis.instructions import with_fp_forms
from ptorewrite.arch import ArchProfile
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.transform import call_lanes

PARTIAL_WRITERS = with_fp_forms("TINSERT")  # write a window of their destination, keep the rest


@dataclass
class Decision:
    tile: ir.TileDecl
    loop: ir.For | None
    copies: int  # 1: left single
    reason: str
    undo: Callable[[], None] | None = None  # turns the copies back into one tile

    def line(self) -> str:
        where = f" in the loop at {self.loop.loc.short}" if self.loop is not None else ""
        name = self.tile.cpp_name or self.tile.name
        if self.copies > 1:
            return f"  {name}: {self.copies} copies{where} ({self.reason})"
        return f"  {name}: single{where} ({self.reason})"


def multibuffer(kernel: ir.Kernel, profile: ArchProfile, copies: int = 2,
                reserved: Mapping[str, Sequence[tuple[int, int]]] | None = None,
                call_copies: bool = True, single: Mapping[int, str] | None = None) -> list[Decision]:
    """Make every qualifying tile `copies` copies (see module doc); returns what was decided for
    each tile some loop writes, for the memory report. The kernel is changed in place. `single`:
    tiles (by id) to leave single although they qualify, with the reason; `call_copies`: whether
    tiles declared in a helper get copies chosen by its count of executions."""
    from ptorewrite.transform.memplan import plan_memory

    decisions: list[Decision] = []
    parents = _parents(kernel)
    helper_blocks = call_lanes.declaring_blocks(kernel)
    for tile in list(kernel.tiles):
        if id(tile) in helper_blocks and call_copies:
            decisions += _call_copies(kernel, tile, profile, copies, reserved, helper_blocks, single or {})
            continue
        if id(tile) in helper_blocks and tile is call_lanes.declaration_group(kernel, tile)[0] and any(
                isinstance(s, ir.Instr) and _touches(s, tile) for s in kernel.instructions()):
            decisions.append(Decision(tile, None, 1, "declared in a helper; with copies, the kernels of this file "
                                      "would need different lines in it"))
            continue
        found = _candidate(kernel, tile, parents)
        if found is None:
            continue
        loop, why_not = found
        why_not = why_not or (single or {}).get(id(tile), "")
        if why_not:
            decisions.append(Decision(tile, loop, 1, why_not))
            continue
        undo = _make_copies(kernel, tile, loop, copies)
        try:
            plan_memory(kernel, profile, Reporter(), reserved)
        except PtoError:
            undo()
            decisions.append(Decision(tile, loop, 1, f"capacity: {copies} copies do not fit"))
            continue
        decisions.append(Decision(tile, loop, copies, "written afresh every iteration, used by "
                                  + " and ".join(sorted(_pipes(kernel, tile))), undo))
    return decisions


def _call_copies(kernel: ir.Kernel, tile: ir.TileDecl, profile: ArchProfile, copies: int, reserved,
                 helper_blocks: dict[int, ir.Block], single: Mapping[int, str]) -> list[Decision]:
    """A tile declared in a helper: copies chosen by the helper's running count of its
    executions (`transform.call_lanes`), for every tile of its declaration at once."""
    from ptorewrite.transform.memplan import plan_memory

    group = call_lanes.declaration_group(kernel, tile)
    if tile is not group[0] or tile.per_lane:
        return []  # decided with the first tile of its declaration
    users = [s for s in kernel.instructions() if any(_touches(s, t) for t in group)]
    if not users:
        return []
    why = ""
    if any(t.alias is not None or t.fixed_addresses or t.count is not None or t.per_lane for t in group) or any(
            t.alias is not None and _alias_root(t) in group for t in kernel.tiles):
        why = "dependence: aliased by TRESHAPE/TSUBVIEW or placed by hand"
    elif any(isinstance(s, (ir.AliasDef, ir.TileAssign)) and any(_mentions(s, t) for t in group)
             for s in ir.walk(kernel.body)):
        why = "dependence: aliased or placed by hand"
    elif len({s.pipe for s in users}) < 2:
        why = "one pipe uses it: nothing to overlap"
    elif any(id(t) not in helper_blocks for t in group):
        why = "declared in a helper here and in the kernel's own body elsewhere"
    elif len(group) < 2 and not _loops_around(helper_blocks[id(tile)], _parents(kernel)):
        why = "declared in a helper that runs once: nothing to overlap"
    why = why or next((single[id(t)] for t in group if id(t) in single), "")
    if why:
        return [Decision(t, None, 1, why) for t in group]
    undo = call_lanes.make_call_copies(kernel, group, copies, helper_blocks)
    try:
        plan_memory(kernel, profile, Reporter(), reserved)
    except PtoError:
        undo()
        return [Decision(t, None, 1, f"declared in a helper; capacity: {copies} copies do not fit") for t in group]
    how = (f"declared in a helper: the copy is its count of executions modulo {copies}, a static "
           f"'{group[0].lane_text}'")
    return [Decision(t, None, copies, how, undo if i == 0 else None) for i, t in enumerate(group)]


def undo_copies(decisions: list[Decision], reason: str) -> list[Decision]:
    """Every tile back to one copy (latest first), each decision saying why."""
    for d in reversed(decisions):
        if d.copies > 1 and d.undo is not None:
            d.undo()
    return [Decision(d.tile, d.loop, 1, reason) if d.copies > 1 else d for d in decisions]


def _parents(kernel: ir.Kernel) -> dict[int, ir.Stmt]:
    out: dict[int, ir.Stmt] = {}
    for s in ir.walk(kernel.body):
        kids = s.stmts if isinstance(s, ir.Block) else [s.body] if isinstance(s, ir.For) else \
            [s.then] + ([s.other] if s.other is not None else []) if isinstance(s, ir.If) else []
        for k in kids:
            out[id(k)] = s
    return out


def _touches(s: ir.Instr, tile: ir.TileDecl) -> list[ir.Arg]:
    return [a for a in s.tile_args if a.value.tile is tile]


def _pipes(kernel: ir.Kernel, tile: ir.TileDecl) -> set[str]:
    return {s.pipe for s in kernel.instructions() if _touches(s, tile)}


def _candidate(kernel: ir.Kernel, tile: ir.TileDecl, parents: dict[int, ir.Stmt]):
    """(loop, reason it is not multi-buffered or "") for a tile used inside a loop, else None."""
    users = [s for s in kernel.instructions() if _touches(s, tile)]
    if not users:
        return None
    loops = [_loops_around(s, parents) for s in users]
    common = [lp for lp in loops[0] if all(any(lp is x for x in other) for other in loops[1:])]
    if not common:
        return None
    loop = common[0]  # the innermost loop holding every use
    if tile.count is not None or tile.per_lane or tile.fixed_addresses:
        return None
    body = loop.body.loc
    in_helper = tile.scope == loop.body.uid and body is not None and not (
        tile.loc.file == body.file and body.offset <= tile.loc.offset < body.end_offset)
    nested = tile.scope != loop.body.uid and any(
        isinstance(b, ir.Block) and b is not loop.body and b.uid == tile.scope for b in ir.walk(loop.body))
    if tile.lanes_shared or in_helper or nested:
        # A helper's declaration cannot name the loop's copy index, and a TASSIGN at the start of
        # the body would come before a nested declaration is in scope.
        return loop, "declared in a helper or a block inside the loop, where no copy index can be named"
    if tile.alias is not None or any(t.alias is not None and _alias_root(t) is tile for t in kernel.tiles):
        return loop, "dependence: aliased by TRESHAPE/TSUBVIEW"
    if any(isinstance(s, (ir.AliasDef, ir.TileAssign)) and _mentions(s, tile) for s in ir.walk(kernel.body)):
        return loop, "dependence: aliased or placed by hand"
    if len(_pipes(kernel, tile)) < 2:
        return loop, "one pipe uses it: nothing to overlap"
    if not (loop.counted and not loop.start.free_vars() and not loop.step.free_vars()):
        return loop, "the loop's start or step is not known"
    if (loop.trip_count() is not None and loop.trip_count() < 2) or \
            any(lp.trip_count() == 0 for lp in loops[0]):
        return loop, "the loop runs at most once: nothing to overlap"
    if all(_in_one_iteration(s, loop, parents) for s in users):
        return loop, "touched in one iteration of the loop only (an `if` on its counter): copies would not alternate"
    if tile.scope != loop.body.uid:
        first = _first_access(loop.body.stmts, tile)
        if first.kind == "r" and first.at is not None:
            at = first.at
            what = (f"{at.op} at {at.loc.short} writes part of it" if at.op in PARTIAL_WRITERS
                    else f"{at.op} at {at.loc.short} may read it before it is written")
            return loop, f"dependence: an iteration reads what an earlier one wrote ({what})"
    return loop, ""


def _in_one_iteration(s: ir.Stmt, loop: ir.For, parents: dict[int, ir.Stmt]) -> bool:
    """The statement runs only in the `then` of an `if (var == e)` on the loop's counter (e not
    naming it): in one iteration of each run of the loop at most."""
    child, p = s, parents.get(id(s))
    while p is not None and p is not loop:
        if isinstance(p, ir.If) and child is p.then and isinstance(p.cond, BinOp) and p.cond.op == "==":
            sides = (p.cond.lhs, p.cond.rhs)
            if any(isinstance(x, Var) and x.name == loop.var for x in sides) and \
                    sum(loop.var in x.free_vars() for x in sides) == 1:
                return True
        child, p = p, parents.get(id(p))
    return False


def _alias_root(t: ir.TileDecl) -> ir.TileDecl:
    while t.alias is not None:
        t = t.alias.base.tile
    return t


def _mentions(s: ir.Stmt, tile: ir.TileDecl) -> bool:
    refs = [s.dst, s.src] if isinstance(s, ir.AliasDef) else [s.ref]
    return any(r.tile is tile for r in refs)


def _loops_around(s: ir.Stmt, parents: dict[int, ir.Stmt]) -> list[ir.For]:
    out = []
    p = parents.get(id(s))
    while p is not None:
        if isinstance(p, ir.For):
            out.append(p)
        p = parents.get(id(p))
    return out


@dataclass(frozen=True)
class _Access:
    """How one stretch of an iteration meets the tile on its every path: "w" every path writes
    it whole before anything reads it; "n" no path reads it before writing it, but some path
    may not write it; "r" some path may read it (or write only part of it) first, at `at`."""

    kind: str
    at: ir.Instr | None = None


_NONE = _Access("n")


def _first_access(stmts: Sequence[ir.Stmt], tile: ir.TileDecl) -> _Access:
    """The first access to the tile along every path through the statements, in order. After a
    stretch that may or may not have written the tile, a read counts as a read first (on the
    path that did not write)."""
    for s in stmts:
        got = _stmt_access(s, tile)
        if got.kind != "n":
            return got
    return _NONE


def _stmt_access(s: ir.Stmt, tile: ir.TileDecl) -> _Access:
    if isinstance(s, ir.Instr):
        args = _touches(s, tile)
        if not args:
            return _NONE
        if s.op in PARTIAL_WRITERS or any(a.reads for a in args):
            return _Access("r", s)
        return _Access("w", s)
    if isinstance(s, ir.Block):
        return _first_access(s.stmts, tile)
    if isinstance(s, ir.If):
        decided = try_eval(s.cond, {})
        if decided is not None:  # a condition known here (kept so every copy of a helper has one text)
            live = s.then if decided else s.other
            return _first_access(live.stmts, tile) if live is not None else _NONE
        then = _first_access(s.then.stmts, tile)
        other = _first_access(s.other.stmts, tile) if s.other is not None else _NONE
        for branch in (then, other):
            if branch.kind == "r":
                return branch
        return then if then.kind == other.kind == "w" else _NONE
    if isinstance(s, ir.For):
        # Every run of the body meets the tile as its first does; it writes it for sure only
        # when the loop is known to run at least once.
        body = _first_access(s.body.stmts, tile)
        if body.kind == "w" and not (s.trip_count() or 0) >= 1:
            return _NONE
        return body
    return _NONE


def copy_index(loop: ir.For, copies: int) -> Expr:
    """`((var - start) / step) % copies`, folded (`k % 2` for a loop from 0 by 1)."""
    k: Expr = Var(loop.var)
    start, step = loop.start.eval({}), loop.step.eval({})
    if start:
        k = binop("-", k, Const(start))
    if step != 1:
        k = binop("/", k, Const(step))
    return binop("%", k, Const(copies))


def _make_copies(kernel: ir.Kernel, tile: ir.TileDecl, loop: ir.For, copies: int):
    """Turn the tile into `copies` per-iteration copies; returns a function that undoes it."""
    index = copy_index(loop, copies)
    names = {loop.var: loop.cpp_var} if loop.cpp_var else {}
    saved = (tile.count, tile.per_lane, tile.lane_text, tile.lane_constexpr, tile.lane_at)
    tile.count, tile.per_lane, tile.lane_constexpr = copies, True, False
    tile.lane_text = cpp_text(index, names)
    # Declared in the body: the TASSIGN goes after the declaration; otherwise at the start of
    # every iteration.
    tile.lane_at = None if tile.scope == loop.body.uid else loop.body
    changed: list[tuple[ir.Instr, tuple]] = []
    for s in kernel.instructions():
        if _touches(s, tile):
            changed.append((s, s.args))
            s.args = tuple(replace(a, value=ir.TileRef(tile, index)) if a.kind == "tile" and a.value.tile is tile
                           else a for a in s.args)

    def undo() -> None:
        tile.count, tile.per_lane, tile.lane_text, tile.lane_constexpr, tile.lane_at = saved
        for s, args in changed:
            s.args = args
    return undo
