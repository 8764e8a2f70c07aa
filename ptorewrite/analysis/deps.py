"""Data dependences between instructions, found per iteration on the concrete trace.

For every access, the nearest earlier conflicting accesses are recorded (RAW to the last
writer, WAW to the last writer, WAR to the readers since it): farther ones are implied
through them. A pair on one pipe that the barrier inside one of the two instructions orders
(`execution.mark_barrier_inside`) is not recorded: it needs nothing. Dynamic pairs are grouped
into static edges between two instructions, classified by the loop that carries them (the
outermost common loop whose iteration differs) or as forward (same iteration of every common
loop).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ptorewrite.analysis import ir
from ptorewrite.analysis.execution import Access, Step
from ptorewrite.analysis.footprint import Footprint

# The cross-core flags of a cluster core planned alone (analysis.cluster_view.CROSS_OP).
CROSS_CORE_FLAGS = frozenset({"CROSS_SET", "CROSS_WAIT"})


@dataclass(frozen=True)
class DynDep:
    src: Step  # or a bounded trace's Op
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
    instances: list[DynDep] = field(default_factory=list)  # one per (producer, consumer) instance pair

    @property
    def cross_pipe(self) -> bool:
        return self.src.pipe != self.dst.pipe

    @property
    def kind(self) -> str:
        for k in ("raw", "war", "waw"):
            if k in self.kinds:
                return k
        return "raw"


class _Cell:
    """Bytes with their last writers (one per path that reaches here with a different one) and
    the readers since."""

    __slots__ = ("bytes", "readers", "writers")

    def __init__(self, fp: Footprint, writers: tuple, readers: tuple):
        self.bytes = fp
        self.writers = writers
        self.readers = readers

    def copy(self) -> _Cell:
        return _Cell(self.bytes, self.writers, self.readers)


_HULLS: dict[int, tuple] = {}


def _hull(fp: Footprint) -> tuple[int, int, int]:
    got = _HULLS.get(id(fp))
    if got is None or got[3] is not fp:
        got = (int(fp.starts[0]), int(fp.ends[-1]), len(fp.starts), fp)
        if len(_HULLS) > 200_000:
            _HULLS.clear()
        _HULLS[id(fp)] = got
    return got[:3]


class _State:
    """What the accesses so far leave behind: per space, the cells of bytes (by footprint) with
    their last writers and the readers since; and, for GM dependences the address test could not
    pin down (`gm_pairs`), the latest instances of each statement."""

    __slots__ = ("cells", "flagged", "latest", "signalled")

    def __init__(self, cells=None, latest=None, signalled=None, flagged=None):
        self.cells: dict[str, dict[int, _Cell]] = cells if cells is not None else {}
        self.latest: dict[int, tuple] = latest if latest is not None else {}
        # A cluster core's cross-core flags (analysis.cluster_view), per GM space they hand over,
        # on every path here: the position of the last set, and of the last set a wait followed.
        self.signalled: dict[str, int] = signalled if signalled is not None else {}
        self.flagged: dict[str, int] = flagged if flagged is not None else {}

    def copy(self) -> _State:
        return _State({k: {f: c.copy() for f, c in v.items()} for k, v in self.cells.items()}, dict(self.latest),
                      dict(self.signalled), dict(self.flagged))

    @staticmethod
    def merge(states: list[_State]) -> _State:
        out = _State()
        for attr in ("signalled", "flagged"):
            spaces = set().union(*(getattr(st, attr) for st in states))
            setattr(out, attr, {sp: min(getattr(st, attr).get(sp, -1) for st in states) for sp in spaces})
        for st in states:
            for space, cells in st.cells.items():
                mine = out.cells.setdefault(space, {})
                for f, c in cells.items():
                    m = mine.get(f)
                    if m is None:
                        mine[f] = c.copy()
                    else:
                        m.writers = _union(m.writers, c.writers)
                        m.readers = _union(m.readers, c.readers)
            for uid, ops in st.latest.items():
                out.latest[uid] = _union(out.latest.get(uid, ()), ops)
        return out


class _Near:
    """Which footprints of a space overlap which: found once per pair of distinct footprints,
    so an access looks up its few neighbours instead of testing every cell."""

    def __init__(self):
        self.seen: dict[str, list[tuple[Footprint, int, int, int]]] = {}
        self.near: dict[int, list[int]] = {}
        self.keep: list[Footprint] = []  # footprints whose ids are keys here stay alive

    def of(self, fp: Footprint) -> list[int]:
        got = self.near.get(id(fp))
        if got is not None:
            return got
        lo, hi, runs = _hull(fp)
        got = [id(fp)]
        for other, olo, ohi, oruns in self.seen.setdefault(fp.space, []):
            if olo < hi and lo < ohi and (runs == 1 and oruns == 1 or other.overlap(fp) is not None):
                got.append(id(other))
                self.near[id(other)].append(id(fp))
        self.seen[fp.space].append((fp, lo, hi, runs))
        self.near[id(fp)] = got
        self.keep.append(fp)
        return got


def _union(a: tuple, b: tuple) -> tuple:
    """The possible last accesses after a join: per statement only the latest one. Knowing an op
    of a pipe complete means knowing its earlier ops complete, and a bounded trace's knowledge
    covers the ops a path never issued, so ordering the latest orders the others on every path."""
    if a == b or not b:
        return a
    if not a:
        return b
    best: dict[int, object] = {}
    for x in a + b:
        old = best.get(x.stmt.uid)
        if old is None or x.pos > old.pos:
            best[x.stmt.uid] = x
    return tuple(best.values())


def dynamic_deps(trace) -> list[DynDep]:
    """Dependences of a concrete trace (`execution.Trace`) or a bounded one (`bounded.BoundedTrace`,
    whose forks merge the states of their alternatives and whose GM "may" pairs depend on the latest
    instance of the partner)."""
    items = trace.items if hasattr(trace, "controls") else trace.steps
    may = trace.gm.may if hasattr(trace, "gm") else {}
    # GM bytes matter only for accesses with an exact pair; the others depend through `may`.
    bytes_blind = {uid for uid in may if uid not in trace.gm.exact} if may else set()
    state = _State()
    flags: set[int] = set()  # uids of cross-core flags (a cluster core planned alone)
    cluster = getattr(getattr(trace, "kernel", None), "cluster", None)
    frames: list[tuple[_State, list[_State]]] = []
    deps: list[DynDep] = []
    near = _Near()
    for d in items:
        kind = d.kind
        if kind == "op":
            op = d.stmt.op
            flag = op in CROSS_CORE_FLAGS
            if op == "CROSS_SET" and cluster is not None and not cluster.orders_later(d.stmt):
                op = "SIGNAL"
            _access(state, d, deps, near, d.stmt.uid in bytes_blind, op if flag else None)
            if d.stmt.uid in may or flag:
                apart = trace.apart.get(d.pos) if hasattr(trace, "apart") else None
                partners = set(may.get(d.stmt.uid, ()))
                if apart:
                    partners -= apart
                # A cross-core flag writes every shared GM argument whole: it meets every access
                # to them whose address the test could not pin down, both ways; a wait only the
                # later ones, and a set that orders nothing after it ("SIGNAL") the earlier ones
                # (`_access`).
                if op in ("CROSS_SET", "SIGNAL"):
                    partners |= set(state.latest)
                elif flags:
                    partners |= {u for u in state.latest if u in flags}
                if op in ("CROSS_SET", "CROSS_WAIT"):
                    flags.add(d.stmt.uid)
                if op == "CROSS_WAIT":
                    partners = set()
                _may(state, d, partners, deps, record=op != "SIGNAL")
                if d.stmt.op == "CROSS_SET":
                    for a in d.accesses:
                        if a.write and a.footprint.space.startswith("GM:"):
                            state.signalled[a.footprint.space] = d.pos
                elif flag:  # a wait after the sets so far (a whole-core wait too)
                    state.flagged.update(state.signalled)
        elif kind == "fork":
            frames.append((state.copy(), []))
        elif kind == "alt":
            entry, ends = frames[-1]
            ends.append(state)
            state = entry.copy()
        elif kind == "exit":
            frames[-1][1].append(state.copy())
        elif kind == "join":
            _, ends = frames.pop()
            ends.append(state)
            state = _State.merge(ends)
    return deps


def _access(state: _State, d, deps: list[DynDep], near: _Near, gm_blind: bool = False,
            flag: str | None = None) -> None:
    """Record d's dependences on the earlier accesses and leave d's accesses for the later ones.

    A cross-core flag (`flag`: its pseudo-instruction's name) writes what the cores share. A
    set is ordered after the earlier accesses (it covers only its own pipe's work). A wait orders
    the later accesses after it (it stalls only its pipe) but needs nothing before it: what this
    core did before it reaches the other core through this core's sets, and what the other core
    does after it waits for one of them. So a wait gets no dependence, and it is kept beside the
    cells' writers instead of replacing them, so the later accesses meet both. A set that orders
    nothing after it on this core ("SIGNAL", `ClusterView.orders_later`) is left out of the
    cells: the later accesses meet the ones before it."""
    cells = state.cells
    for acc in sorted(d.accesses, key=lambda a: a.write):  # reads before writes (in-place ops)
        fp = acc.footprint
        if gm_blind and fp.space.startswith("GM:"):
            continue
        space_cells = cells.get(fp.space)
        if space_cells is None:
            space_cells = cells[fp.space] = {}
        hit = [c for f in near.of(fp) if (c := space_cells.get(f)) is not None]  # (also makes fp known)
        if flag == "CROSS_WAIT":
            _add_writer(space_cells, hit, acc, d)
            continue
        # GM handed over by a cross-core set after x, and a wait after that set, on every path:
        # ordered by the protocol, as for the pairs the address test cannot pin down (`_may`).
        handed = state.flagged.get(fp.space, -1) if state.flagged else -1
        late = d.barrier_inside and not acc.early
        for c in hit:
            for w in _latest(c.writers, d):
                if getattr(w, "pos", -1) < handed and w.stmt.op not in CROSS_CORE_FLAGS:
                    continue
                if not own_barrier_orders(w, d, fp, late, acc.write):
                    deps.append(DynDep(w, d, _after_writer(w, d, fp, late, acc.write), fp.space, acc.what))
            if acc.write:
                for r in _latest(c.readers, d):
                    if getattr(r, "pos", -1) < handed and r.stmt.op not in CROSS_CORE_FLAGS:
                        continue
                    if not own_barrier_orders(r, d, fp, late):
                        deps.append(DynDep(r, d, "war", fp.space, acc.what))
        if flag != "SIGNAL":
            _update(space_cells, hit, acc, d)


def own_barrier_orders(x, d, fp: Footprint, late: bool, write: bool = True) -> bool:
    """The pipe_barrier an instruction's own implementation issues (`execution.mark_barrier_inside`,
    the model `check` uses) orders x's accesses to `fp` before d's access there (a write when
    `write`): every access of x that may touch `fp` and conflict with it (any when d writes, x's
    writes when d reads) is ordered by `barrier_between`. A cell keeps the op, not the access, and
    one op's reads and writes update it in either order (a row broadcast writes the scratch early
    and reads it back late), so every such access of x counts."""
    if x.pipe != d.pipe or getattr(x, "core", "") != getattr(d, "core", ""):
        return False
    if late:
        return True
    lo, hi, _ = _hull(fp)
    for a in x.accesses:
        if a.footprint.space != fp.space or not (write or a.write):
            continue
        alo, ahi, _ = _hull(a.footprint)
        if alo < hi and lo < ahi and not barrier_between(x, a, d, late):
            return False
    return True


def barrier_between(x, a: Access, d, late: bool) -> bool:
    """A pipe_barrier inside x or d orders x's access `a` before d's access (`late`: d makes it
    after its own barrier): both on one pipe of one core, and either d's access is late or `a`
    came before x's barrier."""
    if x.pipe != d.pipe or getattr(x, "core", "") != getattr(d, "core", ""):
        return False
    return late or (x.barrier_inside and a.early)


def _after_writer(w, d, fp: Footprint, late: bool, write: bool) -> str:
    """The hazard of d's access to `fp` after w, the last writer there, that w's own barrier leaves
    unordered. When that barrier orders w's writes there, what is left is w's read after it: the
    second of two row broadcasts writes the hidden scratch before the first one's read-back (WAR),
    not against the first one's write (its barrier orders that)."""
    if write and own_barrier_orders(w, d, fp, late, write=False):
        return "war"
    return "waw" if write else "raw"


def _latest(ops: tuple, d) -> list:
    """The producers to record for consumer d. Across the paths of a bounded trace one cell can
    have many possible last writers; per producing statement and carrying loop only the latest
    matters (knowing an op of a pipe complete means knowing its earlier ops complete)."""
    if len(ops) < 2 or not hasattr(d, "pos"):
        return [x for x in ops if x is not d]
    best: dict[tuple, object] = {}
    di = d.iters
    for x in ops:
        if x is d:
            continue
        carrier = None
        for a, b in zip(x.iters, di):
            if a != b:
                carrier = a[0] if a[0] == b[0] else -1
                break
        key = (x.stmt.uid, carrier)
        old = best.get(key)
        if old is None or x.pos > old.pos:
            best[key] = x
    return list(best.values())


def _may(state: _State, d, partners: set[int], deps: list[DynDep], record: bool = True) -> None:
    mine = [a for a in d.accesses if a.footprint.space.startswith("GM:")]
    for uid in partners:
        for x in _latest(state.latest.get(uid, ()), d):
            for a in mine:
                # x, then a cross-core set that hands this space over and a wait after it, on every
                # path: the other core's side of the protocol orders x before d (the set covers x;
                # d follows the wait), and x -> set, wait -> d are dependences of their own.
                if getattr(x, "pos", -1) < state.flagged.get(a.footprint.space, -1) and \
                        x.stmt.op not in CROSS_CORE_FLAGS:
                    continue
                for b in x.accesses:
                    if b.footprint.space == a.footprint.space and (a.write or b.write):
                        kind = "waw" if (a.write and b.write) else "raw" if b.write else "war"
                        deps.append(DynDep(x, d, kind, a.footprint.space, a.what))
    if record:
        state.latest[d.stmt.uid] = (d,)


def _same(a: Footprint, b: Footprint) -> bool:
    return a is b or (a.covers(b) and b.covers(a))


def _update(space_cells: dict[int, _Cell], hit: list[_Cell], acc: Access, d) -> None:
    fp = acc.footprint
    same = space_cells.get(id(fp))
    if same is None:
        same = next((c for c in hit if _same(c.bytes, fp)), None)
    if acc.write:
        # Cells this write covers entirely are dead: later accesses conflict with this write.
        for c in hit:
            if c is not same and fp.covers(c.bytes):
                del space_cells[id(c.bytes)]
        if same is None:
            space_cells[id(fp)] = _Cell(fp, (d,), ())
        else:
            same.writers, same.readers = (d,), ()
    else:
        if same is None:
            same = space_cells[id(fp)] = _Cell(fp, (), ())
        same.readers = same.readers + (d,)


def _add_writer(space_cells: dict[int, _Cell], hit: list[_Cell], acc: Access, d) -> None:
    """A cross-core wait's write: beside the writers already there, not in their place (`_access`).
    An earlier instance of the same wait is dropped: its pipe finished it before this one."""
    fp = acc.footprint
    same = space_cells.get(id(fp)) or next((c for c in hit if _same(c.bytes, fp)), None)
    if same is None:
        space_cells[id(fp)] = _Cell(fp, (d,), ())
    else:
        same.writers = tuple(x for x in same.writers if x.stmt.uid != d.stmt.uid) + (d,)


def carrier_of(a, b, loops: dict[int, ir.For]) -> ir.For | None:
    for (la, ka), (lb, kb) in zip(a.iters, b.iters):
        if la != lb:
            return None
        if ka != kb:
            return loops[la]
    return None


def static_edges(deps: list[DynDep], kernel: ir.Kernel) -> list[Edge]:
    loops = {id(s): s for s in ir.walk(kernel.body) if isinstance(s, ir.For)}
    edges: dict[tuple, Edge] = {}
    pairs: dict[tuple[int, int], Edge] = {}  # the edge of each (producer, consumer) instance pair
    for dep in deps:
        pair = (id(dep.src), id(dep.dst))
        e = pairs.get(pair)
        if e is None:
            carrier = carrier_of(dep.src, dep.dst, loops)
            key = (dep.src.stmt.uid, dep.dst.stmt.uid, id(carrier) if carrier else None)
            e = edges.get(key)
            if e is None:
                e = edges[key] = Edge(dep.src.stmt, dep.dst.stmt, set(), carrier, dep.what, dep.space)
            pairs[pair] = e
            e.instances.append(dep)
        e.kinds.add(dep.kind)
    return list(edges.values())


def dependence_graph(edges: list[Edge]):
    """Instructions as nodes (with their pipe), dependences as edges (kind, carrier, operand):
    a networkx MultiDiGraph."""
    import networkx as nx

    g = nx.MultiDiGraph()
    for e in edges:
        for s in (e.src, e.dst):
            g.add_node(s.uid, op=s.op, pipe=s.pipe, loc=str(s.loc))
        g.add_edge(e.src.uid, e.dst.uid, role="dep", kinds=tuple(sorted(e.kinds)), what=e.what,
                   carrier=e.carrier.var if e.carrier else None, cross_pipe=e.cross_pipe)
    return g
