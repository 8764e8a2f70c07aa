"""Data dependences between instructions, found per iteration on the concrete trace.

For every access, the nearest earlier conflicting accesses are recorded (RAW to the last
writer, WAW to the last writer, WAR to the readers since it): farther ones are implied
through them. Dynamic pairs are grouped into static edges between two instructions,
classified by the loop that carries them (the outermost common loop whose iteration
differs) or as forward (same iteration of every common loop).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from ptorewrite.analysis import ir
from ptorewrite.analysis.execution import Access, Step, Trace
from ptorewrite.analysis.footprint import Footprint


@dataclass(frozen=True)
class DynDep:
    src: Step
    dst: Step
    kind: str  # "raw", "war", "waw"
    space: str
    what: str  # operand of the destination instruction


@dataclass(eq=False)
class Edge:
    """A static dependence: instruction `src` before instruction `dst`."""

    src: ir.Instr
    dst: ir.Instr
    kinds: set[str]
    carrier: ir.For | None  # None: same iteration of every common loop
    what: str  # operand that carries the dependence, e.g. "x[slot]"
    space: str
    instances: list[DynDep] = field(default_factory=list)

    @property
    def cross_pipe(self) -> bool:
        return self.src.pipe != self.dst.pipe

    @property
    def kind(self) -> str:
        for k in ("raw", "war", "waw"):
            if k in self.kinds:
                return k
        return "raw"


@dataclass
class _Cell:
    bytes: Footprint
    writer: Step | None
    readers: list[Step]


def dynamic_deps(trace: Trace) -> list[DynDep]:
    cells: dict[str, list[_Cell]] = {}
    deps: list[DynDep] = []
    for d in trace.steps:
        if d.kind != "op":
            continue
        for acc in sorted(d.accesses, key=lambda a: a.write):  # reads before writes (in-place ops)
            space_cells = cells.setdefault(acc.footprint.space, [])
            hit = [c for c in space_cells if c.bytes.overlap(acc.footprint) is not None]
            for c in hit:
                if c.writer is not None and c.writer is not d:
                    deps.append(DynDep(c.writer, d, "waw" if acc.write else "raw", acc.footprint.space, acc.what))
                if acc.write:
                    for r in c.readers:
                        if r is not d:
                            deps.append(DynDep(r, d, "war", acc.footprint.space, acc.what))
            _update(space_cells, hit, acc, d)
    return deps


def _same(a: Footprint, b: Footprint) -> bool:
    return a.covers(b) and b.covers(a)


def _update(space_cells: list[_Cell], hit: list[_Cell], acc: Access, d: Step) -> None:
    same = next((c for c in hit if _same(c.bytes, acc.footprint)), None)
    if acc.write:
        # Cells this write covers entirely are dead: later accesses conflict with this write.
        for c in hit:
            if c is not same and acc.footprint.covers(c.bytes):
                space_cells.remove(c)
        if same is None:
            space_cells.append(_Cell(acc.footprint, d, []))
        else:
            same.writer, same.readers = d, []
    else:
        if same is None:
            same = _Cell(acc.footprint, None, [])
            space_cells.append(same)
        same.readers.append(d)


def carrier_of(a: Step, b: Step, loops: dict[int, ir.For]) -> ir.For | None:
    for (la, ka), (lb, kb) in zip(a.iters, b.iters):
        if la != lb:
            return None
        if ka != kb:
            return loops[la]
    return None


def static_edges(deps: list[DynDep], kernel: ir.Kernel) -> list[Edge]:
    loops = {id(s): s for s in ir.walk(kernel.body) if isinstance(s, ir.For)}
    edges: dict[tuple, Edge] = {}
    for dep in deps:
        carrier = carrier_of(dep.src, dep.dst, loops)
        key = (dep.src.stmt.uid, dep.dst.stmt.uid, id(carrier) if carrier else None)
        e = edges.get(key)
        if e is None:
            e = edges[key] = Edge(dep.src.stmt, dep.dst.stmt, set(), carrier, dep.what, dep.space)
        e.kinds.add(dep.kind)
        e.instances.append(dep)
    return list(edges.values())


def dependence_graph(edges: list[Edge]) -> nx.MultiDiGraph:
    """Instructions as nodes (with their pipe), dependences as edges (kind, carrier, operand)."""
    g = nx.MultiDiGraph()
    for e in edges:
        for s in (e.src, e.dst):
            g.add_node(s.uid, op=s.op, pipe=s.pipe, loc=str(s.loc))
        g.add_edge(e.src.uid, e.dst.uid, role="dep", kinds=tuple(sorted(e.kinds)), what=e.what,
                   carrier=e.carrier.var if e.carrier else None, cross_pipe=e.cross_pipe)
    return g
