"""Tile liveness over the structured IR, in program order.

Every Instr and AliasDef gets a position: its index in a pre-order walk of the kernel
body. A loop covers the interval of positions inside it. A tile's lifetime is the closed
interval from its first to its last access, widened as follows:

- A tile declared outside a loop and accessed inside it is live across the whole loop: its
  value may be carried from one iteration to the next.
- A tile declared inside a loop body is fresh every iteration: no widening for that loop.
- A tile multi-buffered in a loop by ptorewrite (every iteration writes it before reading it,
  see transform.multibuffer) is not widened over that loop or the loops around it.
- Exception for if/else: when every access of a (single, non-array) tile lies in one branch
  of an If and its first access there is an unconditional full write at the branch's top
  level, its value is dead when the branch is entered and after the merge. It is not widened
  over the loops around the If, so a tile used only in `then` and one used only in `else`
  get disjoint lifetimes and may share bytes.

Aliases (TRESHAPE/TSUBVIEW destinations) have no bytes of their own: an access through an
alias is an access of its root tile, and the alias binding itself counts as a use of the
root. An array (or a per-lane tile, one copy per MultiBuffered lane) is one unit: all of
its slots share one lifetime, which is simple and never wrong for a symbolic index.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import ZERO, Expr, binop

# One step of the structured path to a statement: ("loop", For) or ("then"/"else", If).
PathStep = tuple[str, ir.Stmt]


@dataclass(frozen=True)
class Access:
    pos: int
    tile: ir.TileDecl  # the root tile (never an alias)
    via: ir.TileDecl | None  # the alias used, if any
    mode: str  # "r", "w", "rw", or "bind" for a TRESHAPE/TSUBVIEW naming the tile
    pipe: str
    stmt: ir.Stmt
    path: tuple[PathStep, ...]

    @property
    def is_data(self) -> bool:
        return self.mode != "bind"


@dataclass(frozen=True)
class Lifetime:
    """Closed interval of program positions during which a tile's bytes hold a live value."""

    start: int
    end: int
    widened_over: tuple[ir.For, ...] = ()  # loops the lifetime was widened to cover

    def overlaps(self, other: Lifetime) -> bool:
        return self.start <= other.end and other.start <= self.end

    def __contains__(self, pos: int) -> bool:
        return self.start <= pos <= self.end


@dataclass(frozen=True)
class AliasRoot:
    """Where an alias tile lives: root tile, the root's slot index (None: the only slot), byte offset."""

    root: ir.TileDecl
    index: Expr | None
    offset_bytes: Expr


@dataclass
class Liveness:
    kernel: ir.Kernel
    stmts: list[ir.Stmt]  # position -> Instr or AliasDef
    paths: list[tuple[PathStep, ...]]  # position -> enclosing loops and branches, outermost first
    loops: dict[ir.For, tuple[int, int]]  # loop -> positions it covers (loops with no positions absent)
    accesses: dict[ir.TileDecl, list[Access]]  # root tile -> accesses in program order
    lifetimes: dict[ir.TileDecl, Lifetime | None]  # every non-alias tile; None if never accessed
    alias_roots: dict[ir.TileDecl, AliasRoot]  # every alias tile
    position: dict[ir.Stmt, int] = field(default_factory=dict)

    def live_at(self, pos: int) -> list[ir.TileDecl]:
        return [t for t, lt in self.lifetimes.items() if lt is not None and pos in lt]

    def pipes(self, tile: ir.TileDecl) -> frozenset[str]:
        return frozenset(a.pipe for a in self.accesses.get(tile, ()) if a.is_data)

    def first_pipe(self, tile: ir.TileDecl) -> str | None:
        return next((a.pipe for a in self.accesses.get(tile, ()) if a.is_data), None)

    def last_pipe(self, tile: ir.TileDecl) -> str | None:
        return next((a.pipe for a in reversed(self.accesses.get(tile, ())) if a.is_data), None)

    def innermost_loop(self, tile: ir.TileDecl) -> ir.For | None:
        """The innermost loop whose interval contains the whole lifetime."""
        lt = self.lifetimes.get(tile)
        if lt is None:
            return None
        best = None
        for loop, (s, e) in self.loops.items():  # inner loops come first
            if not (s <= lt.start and lt.end <= e):
                continue
            if best is None or (self.loops[best][0] <= s and e <= self.loops[best][1] and (s, e) != self.loops[best]):
                best = loop
        return best

    def source_lines(self, tile: ir.TileDecl) -> tuple[ir.SourceRange, ir.SourceRange] | None:
        """Source locations of the first and last access (in the kernel file where possible)."""
        acc = self.accesses.get(tile)
        if not acc:
            return None
        return _kernel_loc(acc[0].stmt, self.kernel.file), _kernel_loc(acc[-1].stmt, self.kernel.file)


def _kernel_loc(stmt: ir.Stmt, file: str) -> ir.SourceRange:
    """The statement's location, or the call site in `file` that inlined it."""
    if stmt.loc.file == file:
        return stmt.loc
    for site in reversed(getattr(stmt, "via", ())):
        if site.file == file:
            return site
    return stmt.loc


def alias_root(tile: ir.TileDecl) -> AliasRoot:
    """Follow TRESHAPE/TSUBVIEW links to the tile that owns the bytes."""
    offset: Expr = ZERO
    index = None
    t = tile
    seen = set()
    while t.alias is not None:
        if id(t) in seen:  # a cycle cannot be written in C++, but do not loop forever
            break
        seen.add(id(t))
        offset = binop("+", t.alias.offset_bytes, offset)
        index = t.alias.base.index
        t = t.alias.base.tile
    return AliasRoot(t, index, offset)


def analyze(kernel: ir.Kernel) -> Liveness:
    """Positions, loop intervals, accesses and lifetimes of every tile of `kernel`."""
    flat = _Flattener()
    flat.visit(kernel.body, ())
    roots = {t: alias_root(t) for t in kernel.tiles if t.alias is not None}
    live = Liveness(kernel, flat.stmts, flat.paths, flat.loops, {}, {}, roots)
    live.position = {s: i for i, s in enumerate(flat.stmts)}
    for pos, stmt in enumerate(flat.stmts):
        path = flat.paths[pos]
        for ref, mode, pipe in _tile_uses(stmt):
            via = ref.tile if ref.tile.alias is not None else None
            root = roots[ref.tile].root if via is not None else ref.tile
            live.accesses.setdefault(root, []).append(Access(pos, root, via, mode, pipe, stmt, path))
    for t in kernel.tiles:
        if t.alias is None:
            live.lifetimes[t] = _lifetime(t, live.accesses.get(t, []), flat)
    return live


def _tile_uses(stmt: ir.Stmt):
    if isinstance(stmt, ir.Instr):
        for a in stmt.tile_args:
            yield a.value, a.access or "r", stmt.pipe
    elif isinstance(stmt, ir.AliasDef):
        yield stmt.src, "bind", "S"
        yield stmt.dst, "bind", "S"


class _Flattener:
    def __init__(self):
        self.stmts: list[ir.Stmt] = []
        self.paths: list[tuple[PathStep, ...]] = []
        self.loops: dict[ir.For, tuple[int, int]] = {}
        self.block_paths: dict[int, tuple[PathStep, ...]] = {}

    def visit(self, s: ir.Stmt, path: tuple[PathStep, ...]) -> None:
        if isinstance(s, ir.Block):
            self.block_paths.setdefault(s.uid, path)
            for x in s.stmts:
                self.visit(x, path)
        elif isinstance(s, (ir.Instr, ir.AliasDef)):
            self.stmts.append(s)
            self.paths.append(path)
        elif isinstance(s, ir.For):
            first = len(self.stmts)
            self.visit(s.body, path + (("loop", s),))
            if len(self.stmts) > first:
                self.loops[s] = (first, len(self.stmts) - 1)
        elif isinstance(s, ir.If):
            self.visit(s.then, path + (("then", s),))
            if s.other is not None:
                self.visit(s.other, path + (("else", s),))


def _common_prefix(paths: list[tuple[PathStep, ...]]) -> tuple[PathStep, ...]:
    out = []
    for steps in zip(*paths):
        first = steps[0]
        if all(st[0] == first[0] and st[1] is first[1] for st in steps):
            out.append(first)
        else:
            break
    return tuple(out)


def _lifetime(tile: ir.TileDecl, accesses: list[Access], flat: _Flattener) -> Lifetime | None:
    if not accesses:
        return None
    decl_path = flat.block_paths.get(tile.scope, ())
    decl_loops = {id(st[1]) for st in decl_path if st[0] == "loop"}
    exempt = _loops_outside_killing_branch(tile, accesses, decl_path) | _loops_writing_afresh(tile, accesses)
    start = min(a.pos for a in accesses)
    end = max(a.pos for a in accesses)
    widened: list[ir.For] = []
    for a in accesses:
        for kind, loop in a.path:
            if kind != "loop" or id(loop) in decl_loops or id(loop) in exempt or loop not in flat.loops:
                continue
            if any(w is loop for w in widened):
                continue
            widened.append(loop)
            s, e = flat.loops[loop]
            start, end = min(start, s), max(end, e)
    return Lifetime(start, end, tuple(widened))


def _loops_writing_afresh(tile: ir.TileDecl, accesses: list[Access]) -> set[int]:
    """Loops (by id) whose every iteration writes the tile before reading it: a tile ptorewrite
    multi-buffered in a loop (`lane_at`, see transform.multibuffer) and the loops around that
    loop. No value crosses their iterations, so its copies are live from the first access to the
    last inside one iteration, as a tile declared in the body is."""
    if tile.lane_at is None:
        return set()
    for a in accesses:
        for i, (kind, loop) in enumerate(a.path):
            if kind == "loop" and isinstance(loop, ir.For) and loop.body is tile.lane_at:
                return {id(st[1]) for st in a.path[:i + 1] if st[0] == "loop"}
    return set()


def _loops_outside_killing_branch(tile: ir.TileDecl, accesses: list[Access],
                                  decl_path: tuple[PathStep, ...]) -> set[int]:
    """Loops (by id) around an If branch that fully overwrites the tile before any other use.

    Only the innermost branch enclosing every access can qualify: the killing write must sit at
    the branch's top level. Arrays never qualify (a write to one slot leaves the others live).
    """
    if tile.count is not None:
        return set()
    common = _common_prefix([a.path for a in accesses])
    branch_at = max((i for i, st in enumerate(common) if st[0] in ("then", "else")), default=None)
    if branch_at is None or (branch_at < len(decl_path) and decl_path[:branch_at + 1] == common[:branch_at + 1]):
        return set()  # no branch, or the tile is declared inside it (no widening there anyway)
    first = next((a for a in accesses if a.is_data), None)
    if first is None or first.mode != "w" or first.via is not None or len(first.path) != branch_at + 1:
        return set()
    # The same instruction must not also read the tile (e.g. through a second operand).
    if any(a.stmt is first.stmt and a.mode != "w" for a in accesses):
        return set()
    return {id(st[1]) for st in common[:branch_at] if st[0] == "loop"}
