"""Copies of a tile declared inside a helper, chosen by a running count of the helper's calls.

A helper that declares its own tiles (a matmul helper's L0A/L0B operands) runs at several
places of a kernel, and no loop index of a caller is in scope at its declaration, so no loop can
give the tile its copies. What an expert writes instead is a counter the helper keeps itself: a
function `static` stepped each time the declaration runs, used as the copy index and as the
event id of the flags that hand the copy between pipes, so that the load of call n + 1 fills the
other copy while call n computes. This module makes that counter:

    static uint32_t al0TilesCopy = 1;                       // before the declaration
    al0TilesCopy = (al0TilesCopy + 1) % 2;                  // each time the block runs
    LeftTile al0Tiles;
    TASSIGN(al0Tiles, 0x0 + al0TilesCopy * 0x8000);         // (transform.tassign)

In the IR the counter is one scalar per function instance and declaration (`TileDecl.
lane_counter`, made by the front end as for a `static` local: a template's instantiations have
their own, every call of one instantiation, from any call site or loop, shares it), set to
`copies - 1` when the kernel starts and stepped at the start of every execution of the
declaring block, so every call's copy is the run-time value the C++ has: a call under a run-time
`if` moves it only when it runs, and the trace (check, the sync planner) follows it exactly. All
the tiles of one declaration (the inlined calls' copies of it, of every instantiation) change
together, since they share one text; tiles declared in one block share that block's counter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Var, binop


def declaring_blocks(kernel: ir.Kernel) -> dict[int, ir.Block]:
    """id(tile) -> the block of an inlined helper whose every run declares the tile afresh, for
    every single tile a helper declares: the loop body or braces it is declared in (the front
    end's `scope`), or the helper's own body when it is declared at the helper's top level (the
    scope is then the caller's)."""
    chains: dict[int, list[ir.Block]] = {}  # id(instruction) -> the blocks around it, outermost first

    def visit(s: ir.Stmt, around: list[ir.Block]) -> None:
        if isinstance(s, ir.Block):
            around = around + [s]
            for x in s.stmts:
                visit(x, around)
        elif isinstance(s, ir.For):
            visit(s.body, around)
        elif isinstance(s, ir.If):
            visit(s.then, around)
            if s.other is not None:
                visit(s.other, around)
        elif isinstance(s, ir.Instr):
            chains[id(s)] = around

    visit(kernel.body, [])
    out: dict[int, ir.Block] = {}
    users: dict[int, list[ir.Instr]] = {}
    for s in kernel.instructions():
        for a in s.tile_args:
            users.setdefault(id(a.value.tile), []).append(s)
    for t in kernel.tiles:
        if not t.lane_counter or t.count is not None or id(t) not in users:
            continue
        around = chains[id(users[id(t)][0])]
        common = [b for i, b in enumerate(around)
                  if all(len(chains[id(u)]) > i and chains[id(u)][i] is b for u in users[id(t)])]
        helper = next((i for i in range(len(common) - 1, -1, -1) if common[i].inlined), None)
        if helper is None:
            continue  # declared in the kernel's own body
        inner = next((b for b in common[helper:] if b.uid == t.scope), common[helper])
        out[id(t)] = inner
    return out


def declaration_group(kernel: ir.Kernel, tile: ir.TileDecl) -> list[ir.TileDecl]:
    """Every tile of the kernel written by the same declaration as `tile` (one per inlined call)."""
    return [t for t in kernel.tiles if t.loc.file == tile.loc.file and t.loc.offset == tile.loc.offset
            and t.declarator == tile.declarator]


def counter_text(var: str) -> str:
    """The C++ name of a counter (the IR's unique suffix dropped: one name per declaration)."""
    return var.split("#")[0]


def make_call_copies(kernel: ir.Kernel, group: list[ir.TileDecl], copies: int,
                     blocks: dict[int, ir.Block]) -> Callable[[], None]:
    """(`blocks`: declaring_blocks)"""
    """Give every tile of `group` (one declaration) `copies` copies indexed by its block's
    counter; returns a function that undoes it."""
    # Tiles declared in one block share the counter of the first of them already counting there.
    counters: dict[int, str] = {}
    for t in kernel.tiles:
        if t.per_lane and t.counter_block:
            counters.setdefault(t.counter_block, t.lane_counter)
    saved = [(t, t.count, t.per_lane, t.lane_text, t.lane_constexpr, t.lanes_shared, t.lane_counter, t.counter_block)
             for t in group]
    changed: list[tuple[ir.Instr, tuple]] = []
    added: list[tuple[ir.Block, ir.Assign]] = []
    started = {s.var for s in kernel.body.stmts if is_counter_start(s)}
    for t in group:
        block = blocks[id(t)]
        var = counters.setdefault(block.uid, t.lane_counter)
        index = Var(var)
        t.count, t.per_lane, t.lane_constexpr, t.lanes_shared = copies, True, False, False
        t.lane_counter, t.lane_text, t.counter_block = var, counter_text(var), block.uid
        if not any(isinstance(s, ir.Assign) and s.var == var for s in block.stmts[:1]):
            step = ir.Assign(var, binop("%", binop("+", Var(var), Const(1)), Const(copies)), t.loc)
            block.stmts.insert(0, step)
            added.append((block, step))
        if var not in started:
            start = ir.Assign(var, Const(copies - 1), t.loc)
            start.counter_start = True  # type: ignore[attr-defined]
            kernel.body.stmts.insert(0, start)
            added.append((kernel.body, start))
            started.add(var)
        for s in kernel.instructions():
            if any(a.kind == "tile" and a.value.tile is t for a in s.args):
                changed.append((s, s.args))
                s.args = tuple(replace(a, value=ir.TileRef(t, index)) if a.kind == "tile" and a.value.tile is t
                               else a for a in s.args)

    def undo() -> None:
        for t, count, per_lane, lane_text, lane_constexpr, lanes_shared, counter, block in saved:
            t.count, t.per_lane, t.lane_text, t.lane_constexpr, t.lanes_shared, t.lane_counter, t.counter_block = \
                count, per_lane, lane_text, lane_constexpr, lanes_shared, counter, block
        for s, args in reversed(changed):
            s.args = args
        for block, stmt in added:
            block.stmts[:] = [s for s in block.stmts if s is not stmt]
    return undo


def is_counter_start(s: ir.Stmt) -> bool:
    """The kernel's first statements that set a counter before any call: they stand for the
    static's initializer, which is in scope only inside the helper."""
    return isinstance(s, ir.Assign) and bool(getattr(s, "counter_start", False))
