"""The tile interference graph: which placed tiles may not share bytes.

Nodes are the tiles that own bytes (every TileDecl that is not a TRESHAPE/TSUBVIEW alias).
Node attributes:
    buffer      buffer name from the profile ("UB", "L1", "L0A", ...)
    nbytes      bytes of one slot (Rows * Cols * sizeof(DType))
    slots       number of slots (array length, lanes of a per-lane tile, else 1)
    lifetime    liveness.Lifetime, or None when the tile is never accessed
    pipes       frozenset of pipes whose instructions access the tile (through aliases too)
    first_pipe  pipe of the first data access (None if unused)
    last_pipe   pipe of the last data access (None if unused)
    loop        innermost ir.For containing the whole lifetime, or None
    decl        source key (file, byte offset) of the declaration statement; tiles declared by
                a helper that is inlined several times share it
An edge joins two tiles of the same buffer whose lifetimes overlap (they are simultaneously
live). Edge attribute `overlap`: the (start, end) positions both are live.

The graph is a plain pair of dicts with the read side of networkx's Graph (`nodes[t][attr]`,
`edges[a, b][attr]` in either order, `for a, b in edges`, `has_edge`): the planner needs no
graph algorithm, and importing networkx would cost every run of the tool about a quarter of a
second.
"""

from __future__ import annotations

from ptorewrite.analysis import ir
from ptorewrite.analysis.liveness import Liveness
from ptorewrite.arch import TILE_TYPE_BUFFER


def decl_key(tile: ir.TileDecl) -> tuple[str, int, int]:
    """One declarator in the source: the inlinings of one helper share it, `TileT a, b;` has two."""
    return tile.loc.file, tile.loc.offset, tile.declarator


class _Edges(dict):
    """(a, b) -> attributes, in the order added; looked up in either order."""

    def __getitem__(self, key: tuple[ir.TileDecl, ir.TileDecl]) -> dict:
        got = self.get(key)
        return got if got is not None else super().__getitem__(key[::-1])

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or (isinstance(key, tuple) and dict.__contains__(self, key[::-1]))


class InterferenceGraph:
    def __init__(self) -> None:
        self.nodes: dict[ir.TileDecl, dict] = {}
        self.edges = _Edges()

    def add_node(self, tile: ir.TileDecl, **attrs) -> None:
        self.nodes.setdefault(tile, {}).update(attrs)

    def add_edge(self, a: ir.TileDecl, b: ir.TileDecl, **attrs) -> None:
        if (a, b) in self.edges:
            self.edges[a, b].update(attrs)
        else:
            self.edges[a, b] = dict(attrs)

    def has_edge(self, a: ir.TileDecl, b: ir.TileDecl) -> bool:
        return (a, b) in self.edges


def interference_graph(live: Liveness) -> InterferenceGraph:
    g = InterferenceGraph()
    tiles = [t for t in live.kernel.tiles if t.alias is None]
    for t in tiles:
        g.add_node(
            t, buffer=TILE_TYPE_BUFFER[t.tile_type], nbytes=t.nbytes, slots=t.slots,
            lifetime=live.lifetimes.get(t), pipes=live.pipes(t), first_pipe=live.first_pipe(t),
            last_pipe=live.last_pipe(t), loop=live.innermost_loop(t), decl=decl_key(t),
        )
    by_buffer: dict[str, list[ir.TileDecl]] = {}
    for t in tiles:
        if live.lifetimes.get(t) is not None:
            by_buffer.setdefault(g.nodes[t]["buffer"], []).append(t)
    for group in by_buffer.values():
        # Sweep in order of start: each tile meets only tiles that started before it ends.
        group.sort(key=lambda t: live.lifetimes[t].start)
        for i, a in enumerate(group):
            la = live.lifetimes[a]
            for b in group[i + 1:]:
                lb = live.lifetimes[b]
                if lb.start > la.end:
                    break
                g.add_edge(a, b, overlap=(max(la.start, lb.start), min(la.end, lb.end)))
    return g
