"""Memory planning: a byte address in its buffer for every tile that owns bytes.

Each buffer (UB, L1, L0A, L0B, L0C, BIAS, FB) is planned on its own, below the profile's
`alloc_limit` and at its alignment. Policy:

1. Tiles the input already places with a constant TASSIGN are fixed; they are checked
   (alignment, limit, no overlap with a simultaneously live tile), never moved.
2. If every other tile fits after them without sharing any byte, they are placed that way:
   in declaration order, one after the other, each aligned. No reuse.
3. Otherwise tiles with disjoint lifetimes share bytes. Tiles are taken largest first and put
   at the lowest address that avoids every simultaneously live tile, preferring (in order)
   fresh bytes, then bytes of a tile whose sharing adds no cross-pipe dependence inside a loop
   (the two tiles sit in different loops, or the pipe that last touches one is the pipe that
   first touches the other). If that greedy choice fails, plain lowest-address first fit is
   tried (largest first, then by lifetime start). Every reuse is reported as a warning.
4. If nothing fits, a PtoError names the buffer, the live bytes at the peak against the limit,
   the tiles live there, and what would help.

An array or a per-lane tile is one contiguous block of equal-stride slots (the stride is the
slot size rounded up to the alignment), so one `base + lane * stride` expression can place a
per-lane tile. A declaration inlined several times (a tile declared in a helper called twice)
is planned as one tile over the union of its lifetimes: one TASSIGN line serves every call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Expr, try_eval
from ptorewrite.analysis.interference import InterferenceGraph, decl_key, interference_graph
from ptorewrite.analysis.liveness import Lifetime, Liveness, analyze
from ptorewrite.arch import PROFILES, TILE_TYPE_BUFFER, ArchProfile, Buffer
from ptorewrite.diagnostics import Diagnostic, PtoError, Reporter, to_location

BUFFER_ORDER = ("UB", "L1", "L0A", "L0B", "L0C", "BIAS", "FB")


# ---------------------------------------------------------------- the plan


@dataclass(frozen=True, eq=False)
class TilePlacement:
    """Where one tile declaration lives: a contiguous block of equal-stride slots."""

    tile: ir.TileDecl  # the declaration (first inlining, if a helper declares it)
    members: tuple[ir.TileDecl, ...]  # every TileDecl this declaration produced
    buffer: str
    nbytes: int  # one slot
    stride: int  # distance between slots
    addresses: tuple[int, ...]  # byte address of each slot
    fixed_slots: frozenset[int]  # slots the input placed with TASSIGN
    lifetime: Lifetime | None  # hull of the members' lifetimes

    @property
    def name(self) -> str:
        return self.tile.cpp_name or self.tile.name

    @property
    def label(self) -> str:
        return f"{self.name}[{len(self.addresses)}]" if self.tile.count else self.name

    @property
    def start(self) -> int:
        return min(self.addresses)

    @property
    def end(self) -> int:
        return max(self.addresses) + self.nbytes


@dataclass(frozen=True)
class AliasPlacement:
    """A TRESHAPE/TSUBVIEW tile: the root's slot address plus a byte offset, no bytes of its own."""

    tile: ir.TileDecl
    root: ir.TileDecl
    index: Expr | None  # root slot, possibly symbolic (e.g. i % 2)
    offset_bytes: Expr

    def slots(self, plan: MemoryPlan) -> tuple[int, ...]:
        """Root slots the alias can name: the constant index, or all of them."""
        n = len(plan.placement(self.root).addresses)
        if self.index is None:
            return (0,)
        c = self.index.const_value()
        return (c,) if isinstance(c, int) else tuple(range(n))

    def address(self, plan: MemoryPlan, env: Mapping[str, int] | None = None) -> int | None:
        """Byte address for concrete values of the loop variables in `env`; None if unknown."""
        env = env or {}
        slot = 0 if self.index is None else try_eval(self.index, env)
        off = try_eval(self.offset_bytes, env)
        if slot is None or off is None:
            return None
        return plan.address(self.root, int(slot)) + int(off)


@dataclass(frozen=True)
class Reuse:
    """Two tiles with disjoint lifetimes that share bytes."""

    buffer: str
    tile: TilePlacement  # the one declared later
    other: TilePlacement
    start: int  # shared byte range [start, end)
    end: int
    cross_pipe: bool  # sharing adds a cross-pipe dependence inside a loop


@dataclass(frozen=True)
class BufferUse:
    name: str
    limit: int  # bytes the planner may use
    capacity: int  # physical size
    alignment: int
    used: int  # one past the highest byte any tile occupies
    peak_live: int  # most bytes live at one program position
    peak_at: int | None  # that position
    reuse: bool  # tiles had to share bytes
    placements: tuple[TilePlacement, ...]  # by address


@dataclass
class MemoryPlan:
    kernel: ir.Kernel
    profile: ArchProfile
    liveness: Liveness
    graph: InterferenceGraph
    placements: list[TilePlacement]  # declaration order
    aliases: dict[ir.TileDecl, AliasPlacement]
    buffers: dict[str, BufferUse]
    reuses: list[Reuse]
    reserved: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    _by_tile: dict[ir.TileDecl, TilePlacement] = field(default_factory=dict, repr=False)

    def __post_init__(self):
        for p in self.placements:
            for m in p.members:
                self._by_tile[m] = p

    def placement(self, tile: ir.TileDecl) -> TilePlacement:
        if tile.alias is not None:
            return self._by_tile[self.aliases[tile].root]
        return self._by_tile[tile]

    def address(self, tile: ir.TileDecl, slot: int = 0) -> int:
        """Byte address of a placed tile's slot (aliases: use AliasPlacement.address)."""
        return self._by_tile[tile].addresses[slot]

    def lifetime(self, tile: ir.TileDecl) -> Lifetime | None:
        return self.liveness.lifetimes.get(tile)


# ---------------------------------------------------------------- planning


def plan_memory(kernel: ir.Kernel, profile: ArchProfile, reporter: Reporter,
                reserved: Mapping[str, Sequence[tuple[int, int]]] | None = None) -> MemoryPlan:
    """Place every tile of `kernel`; warn about each reuse; PtoError on overflow or conflicts.

    `reserved` maps a buffer to byte ranges [start, end) no tile may use (kept free all along).
    """
    live = analyze(kernel)
    graph = interference_graph(live)
    units = _units(kernel, live, graph, profile)
    if kernel.cluster is not None:  # FIFO slot tiles: the pipe places them (analysis.cluster_view)
        units = [u for u in units if not any(id(m) in kernel.cluster.unplaced for m in u.members)]
    reserved_ranges = _check_reserved(reserved or {}, profile)
    _check_fixed(kernel, units, live)
    placements: list[TilePlacement] = []
    buffers: dict[str, BufferUse] = {}
    reuses: list[Reuse] = []
    for name in BUFFER_ORDER:
        mine = [u for u in units if u.buffer.name == name]
        if not mine:
            continue
        planner = _BufferPlanner(profile.buffers[name], mine, reserved_ranges.get(name, ()), live, kernel, profile)
        planner.run()
        placed = planner.placements()
        placements += placed
        buf_reuses = planner.reuses(placed)
        reuses += buf_reuses
        peak, at = planner.peak()
        buffers[name] = BufferUse(
            name, planner.limit, planner.buffer.capacity, planner.buffer.alignment,
            max((p.end for p in placed), default=0), peak, at, planner.reused,
            tuple(sorted(placed, key=lambda p: (p.start, p.tile.loc.offset))),
        )
        if planner.reused:
            for r in buf_reuses:
                _warn_reuse(reporter, r, planner)
    placements.sort(key=lambda p: kernel.tiles.index(p.tile))
    for p in placements:
        if p.tile.lanes_shared:
            reporter.warn(f"tile '{p.name}' is declared in a helper called from a MultiBuffered body, where the "
                          "lane cannot be named: its lanes share one copy, so they do not overlap on it (declare "
                          "it in the body to give each lane its own)", p.tile.loc)
    aliases = {t: AliasPlacement(t, r.root, r.index, r.offset_bytes) for t, r in live.alias_roots.items()}
    return MemoryPlan(kernel, profile, live, graph, placements, aliases, buffers, reuses,
                      {k: tuple(v) for k, v in reserved_ranges.items()})


def align_up(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def fmt_bytes(n: int) -> str:
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    if n >= 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n} B"


@dataclass(eq=False)
class _Unit:
    """One declaration statement: the TileDecls it produced and what they need."""

    members: list[ir.TileDecl]
    buffer: Buffer
    nbytes: int
    stride: int
    slots: int
    order: int  # declaration order
    lifetimes: list[Lifetime]
    first_pipe: str | None
    last_pipe: str | None
    loop: ir.For | None
    fixed: dict[int, int] = field(default_factory=dict)
    conflicts: set[int] = field(default_factory=set)  # ids of units live at the same time

    @property
    def tile(self) -> ir.TileDecl:
        return self.members[0]

    @property
    def name(self) -> str:
        return self.tile.cpp_name or self.tile.name

    @property
    def start(self) -> int:
        return min((lt.start for lt in self.lifetimes), default=-1)

    def live_at(self, pos: int) -> bool:
        return any(pos in lt for lt in self.lifetimes)


@dataclass(eq=False)
class _Item:
    """Slots of a unit placed as one contiguous block (reserved ranges have no unit)."""

    unit: _Unit | None
    slots: tuple[int, ...]
    span: int
    addr: int | None = None
    fixed: bool = False

    def overlaps(self, addr: int, span: int) -> bool:
        return self.addr is not None and self.addr < addr + span and addr < self.addr + self.span


def _units(kernel: ir.Kernel, live: Liveness, graph: InterferenceGraph, profile: ArchProfile) -> list[_Unit]:
    groups: dict[tuple[str, int], list[ir.TileDecl]] = {}
    for t in kernel.tiles:
        if t.alias is None:
            groups.setdefault(decl_key(t), []).append(t)
    units: list[_Unit] = []
    unit_of: dict[ir.TileDecl, _Unit] = {}
    for order, members in enumerate(groups.values()):
        first = members[0]
        for m in members[1:]:
            if (m.tile_type, m.nbytes, m.slots) != (first.tile_type, first.nbytes, first.slots):
                raise PtoError(
                    f"'{first.cpp_name}' is declared once but inlined with different tile types "
                    f"({first.type_text} and {m.type_text}); one TASSIGN line cannot place both: "
                    "declare the tile at each call site instead", first.loc)
        buf = profile.buffers[TILE_TYPE_BUFFER[first.tile_type]]
        node = graph.nodes[first]
        lts = [live.lifetimes[m] for m in members if live.lifetimes.get(m) is not None]
        unit = _Unit(members, buf, first.nbytes, align_up(max(first.nbytes, 1), buf.alignment), first.slots,
                     order, lts, node["first_pipe"], node["last_pipe"], node["loop"])
        for m in members:
            for slot, addr in sorted(m.fixed_addresses.items()):
                if unit.fixed.setdefault(slot, addr) != addr:
                    raise PtoError(f"'{first.cpp_name}' slot {slot} is placed at two addresses", first.loc)
            unit_of[m] = unit
        units.append(unit)
    for a, b in graph.edges:
        ua, ub = unit_of[a], unit_of[b]
        if ua is ub:
            la, lb = live.source_lines(a), live.source_lines(b)
            raise PtoError(
                f"'{ua.name}' is declared in a helper inlined more than once, and two inlinings are live "
                "at the same time; one TASSIGN line cannot give them different addresses: declare the tile "
                "at each call site instead", ua.tile.loc,
                notes=tuple(Diagnostic("note", "one inlining is used here", to_location(x[0]))
                            for x in (la, lb) if x))
        ua.conflicts.add(id(ub))
        ub.conflicts.add(id(ua))
    return units


def _check_reserved(reserved: Mapping[str, Sequence[tuple[int, int]]],
                    profile: ArchProfile) -> dict[str, list[tuple[int, int]]]:
    out: dict[str, list[tuple[int, int]]] = {}
    for name, ranges in reserved.items():
        if name not in profile.buffers:
            raise PtoError(f"cannot reserve bytes in unknown buffer '{name}' "
                           f"(buffers: {', '.join(BUFFER_ORDER)})")
        for lo, hi in ranges:
            if not 0 <= lo < hi <= profile.buffers[name].capacity:
                raise PtoError(f"reserved range 0x{lo:x}:0x{hi:x} is not inside {name} "
                               f"(0x0:0x{profile.buffers[name].capacity:x})")
            out.setdefault(name, []).append((lo, hi))
    return out


def _tile_assigns(kernel: ir.Kernel) -> list[ir.TileAssign]:
    return [s for s in ir.walk(kernel.body) if isinstance(s, ir.TileAssign)]


def _check_fixed(kernel: ir.Kernel, units: list[_Unit], live: Liveness) -> None:
    """Every TASSIGN of the input must have a constant slot and address the planner can honour."""
    for s in _tile_assigns(kernel):
        tile = s.ref.tile
        if kernel.cluster is not None and id(tile) in kernel.cluster.slot_tiles:
            continue
        if tile.alias is not None:
            raise PtoError(f"TASSIGN of '{tile.cpp_name}', which is a {tile.alias.kind} alias: an alias takes "
                           "its base tile's address", s.loc)
        idx = s.ref.index.const_value() if s.ref.index is not None else 0
        addr = s.address.const_value()
        if not isinstance(idx, int) or not isinstance(addr, int):
            raise PtoError(f"TASSIGN({s.ref}, {s.address}) has no compile-time address; the planner can only "
                           "keep constant placements (write the address as a constant, or drop the TASSIGN)",
                           s.loc)
    locs = {(id(s.ref.tile), (s.ref.index.const_value() if s.ref.index is not None else 0)): s.loc
            for s in reversed(_tile_assigns(kernel))
            if kernel.cluster is None or id(s.ref.tile) not in kernel.cluster.slot_tiles}
    for u in units:
        for slot, addr in sorted(u.fixed.items()):
            loc = next((locs[(id(m), slot)] for m in u.members if (id(m), slot) in locs), u.tile.loc)
            what = f"'{u.name}[{slot}]'" if u.tile.count else f"'{u.name}'"
            if not 0 <= slot < u.slots:
                raise PtoError(f"TASSIGN of {what}: index {slot} is outside the array of {u.slots}", loc)
            if addr % u.buffer.alignment:
                raise PtoError(f"TASSIGN of {what} at 0x{addr:x} is not aligned to {u.buffer.alignment} B "
                               f"(the {u.buffer.name} alignment)", loc)
            if addr < 0 or addr + u.nbytes > u.buffer.alloc_limit:
                raise PtoError(f"TASSIGN of {what} at 0x{addr:x} ({fmt_bytes(u.nbytes)}) ends at "
                               f"0x{addr + u.nbytes:x}, past the {u.buffer.name} limit 0x{u.buffer.alloc_limit:x} "
                               f"({fmt_bytes(u.buffer.alloc_limit)})", loc)
    # Fixed slots of simultaneously live tiles (or of one array) must not overlap.
    fixed = [(u, slot, addr) for u in units for slot, addr in sorted(u.fixed.items())]
    for i, (u, s, a) in enumerate(fixed):
        for v, t, b in fixed[i + 1:]:
            if u.buffer is not v.buffer or not (a < b + v.nbytes and b < a + u.nbytes):
                continue
            if u is v or id(v) in u.conflicts:
                loc_v = next((locs[(id(m), t)] for m in v.members if (id(m), t) in locs), v.tile.loc)
                loc_u = next((locs[(id(m), s)] for m in u.members if (id(m), s) in locs), u.tile.loc)
                other = f"{u.name}[{s}]" if u.tile.count else u.name
                this = f"{v.name}[{t}]" if v.tile.count else v.name
                why = "two slots of one array" if u is v else "both are live at the same time"
                raise PtoError(f"TASSIGN places '{this}' at 0x{b:x} over '{other}' at 0x{a:x} in "
                               f"{u.buffer.name} ({why})", loc_v,
                               notes=(Diagnostic("note", f"'{other}' is placed here", to_location(loc_u)),))


class _BufferPlanner:
    def __init__(self, buffer: Buffer, units: list[_Unit], reserved: Sequence[tuple[int, int]],
                 live: Liveness, kernel: ir.Kernel, profile: ArchProfile):
        self.buffer = buffer
        self.limit = buffer.alloc_limit
        self.units = units
        self.live = live
        self.kernel = kernel
        self.profile = profile
        self.reused = False
        self.items: list[_Item] = []
        for lo, hi in reserved:
            self.items.append(_Item(None, (), hi - lo, lo, fixed=True))
        for u in units:
            if u.fixed:
                for slot, addr in sorted(u.fixed.items()):
                    clash = next((r for r in self.items if r.unit is None and r.overlaps(addr, u.nbytes)), None)
                    if clash is not None:
                        raise PtoError(f"TASSIGN places '{u.name}' at 0x{addr:x}, inside the reserved {buffer.name} "
                                       f"range 0x{clash.addr:x}:0x{clash.addr + clash.span:x}", u.tile.loc)
                    self.items.append(_Item(u, (slot,), u.nbytes, addr, fixed=True))
                for slot in range(u.slots):
                    if slot not in u.fixed:
                        self.items.append(_Item(u, (slot,), u.nbytes))
            else:
                self.items.append(_Item(u, tuple(range(u.slots)), u.stride * (u.slots - 1) + u.nbytes))

    # -- policy

    def run(self) -> None:
        free = [it for it in self.items if not it.fixed]
        for it in free:
            if it.span > self.limit:
                self._overflow(it)
        if self._place_without_reuse(free):
            return
        self.reused = True
        first_failure = None
        by_size = sorted(free, key=lambda it: (-it.span, it.unit.start, it.unit.order, it.slots))
        by_start = sorted(free, key=lambda it: (it.unit.start, it.unit.order, it.slots))
        for order, prefer in ((by_size, True), (by_size, False), (by_start, False)):
            failed = self._first_fit(order, prefer)
            if failed is None:
                return
            first_failure = first_failure or failed
        self._overflow(first_failure)

    def _place_without_reuse(self, free: list[_Item]) -> bool:
        occupied = [it for it in self.items if it.fixed]
        cursor = 0
        for it in sorted(free, key=lambda it: (it.unit.order, it.slots)):
            addr = align_up(cursor, self.buffer.alignment)
            while True:
                clash = next((o for o in occupied if o.overlaps(addr, it.span)), None)
                if clash is None:
                    break
                addr = align_up(clash.addr + clash.span, self.buffer.alignment)
            if addr + it.span > self.limit:
                for x in free:
                    x.addr = None
                return False
            it.addr = addr
            occupied.append(it)
            cursor = addr + it.span
        return True

    def _first_fit(self, order: list[_Item], prefer: bool) -> _Item | None:
        """Place `order` greedily; the item that did not fit, or None."""
        for x in order:
            x.addr = None
        placed = [it for it in self.items if it.fixed]
        for it in order:
            best: tuple | None = None
            candidates = sorted({0} | {align_up(o.addr + o.span, self.buffer.alignment) for o in placed})
            for addr in candidates:
                if addr + it.span > self.limit:
                    break
                over = [o for o in placed if o.overlaps(addr, it.span)]
                if any(self._interfere(it, o) for o in over):
                    continue
                partners = {id(o.unit): o.unit for o in over}
                if prefer:
                    bad = sum(self.adds_cross_pipe_dependence(it.unit, p) for p in partners.values())
                    key = (bad, len(partners), addr)
                else:
                    key = (addr,)
                if best is None or key < best[0]:
                    best = (key, addr)
                if not prefer:
                    break  # candidates are sorted: the first feasible one is the lowest
            if best is None:
                return it
            it.addr = best[1]
            placed.append(it)
        return None

    @staticmethod
    def _interfere(a: _Item, b: _Item) -> bool:
        if a.unit is None or b.unit is None or a.unit is b.unit:
            return True
        return id(b.unit) in a.unit.conflicts

    @staticmethod
    def adds_cross_pipe_dependence(a: _Unit, b: _Unit) -> bool:
        """Sharing bytes between a and b orders the pipes that hand the bytes over, every iteration
        of a loop that holds both lifetimes; it is free when the same pipe hands over both ways."""
        if a.loop is None or a.loop is not b.loop or a.first_pipe is None or b.first_pipe is None:
            return False
        return a.last_pipe != b.first_pipe or b.last_pipe != a.first_pipe

    # -- results

    def placements(self) -> list[TilePlacement]:
        out = []
        for u in self.units:
            addrs = [0] * u.slots
            for it in self.items:
                if it.unit is u:
                    for k, slot in enumerate(it.slots):
                        addrs[slot] = it.addr + k * u.stride
            lts = u.lifetimes
            hull = Lifetime(min(x.start for x in lts), max(x.end for x in lts)) if lts else None
            if len(lts) == 1:
                hull = lts[0]
            out.append(TilePlacement(u.tile, tuple(u.members), self.buffer.name, u.nbytes, u.stride,
                                     tuple(addrs), frozenset(u.fixed), hull))
        return out

    def reuses(self, placed: list[TilePlacement]) -> list[Reuse]:
        by_unit = dict(zip((id(u) for u in self.units), placed))
        found: dict[tuple[int, int], Reuse] = {}
        units = [it for it in self.items if it.unit is not None]
        for i, a in enumerate(units):
            for b in units[i + 1:]:
                if a.unit is b.unit or not a.overlaps(b.addr, b.span):
                    continue
                ua, ub = sorted((a.unit, b.unit), key=lambda u: u.order)
                key = (id(ua), id(ub))
                lo, hi = max(a.addr, b.addr), min(a.addr + a.span, b.addr + b.span)
                prev = found.get(key)
                if prev is not None:
                    lo, hi = min(lo, prev.start), max(hi, prev.end)
                found[key] = Reuse(self.buffer.name, by_unit[id(ub)], by_unit[id(ua)], lo, hi,
                                   self.adds_cross_pipe_dependence(ua, ub))
        return sorted(found.values(), key=lambda r: (r.tile.tile.loc.offset, r.other.tile.loc.offset))

    def live_bytes(self) -> list[int]:
        """Bytes live at each program position (reserved ranges count everywhere)."""
        n = len(self.live.stmts)
        diff = [0] * (n + 1)
        always = 0
        for it in self.items:
            if it.unit is None:
                always += it.span
                continue
            for lt in it.unit.lifetimes:
                diff[lt.start] += it.span
                diff[lt.end + 1] -= it.span
        out, run = [], always
        for pos in range(n):
            run += diff[pos]
            out.append(run)
        return out

    def peak(self) -> tuple[int, int | None]:
        live = self.live_bytes()
        if not live:
            return sum(it.span for it in self.items if it.unit is None), None
        at = max(range(len(live)), key=lambda p: (live[p], -p))
        return live[at], at

    # -- overflow

    def _overflow(self, failed: _Item) -> None:
        buf, limit = self.buffer.name, self.limit
        u = failed.unit
        if failed.span > limit:
            raise PtoError(f"{buf} overflow: '{u.name}' needs {fmt_bytes(failed.span)} ({failed.span} B) but "
                           f"{buf} has {fmt_bytes(limit)} ({limit} B) for tiles",
                           u.tile.loc, notes=(Diagnostic("note", self._advice([u]), None),))
        peak, at = self.peak()
        at_units = [x for x in self.units if at is not None and x.live_at(at)]
        stmt = self.live.stmts[at] if at is not None else None
        where = ""
        if stmt is not None:
            loc = stmt.loc if stmt.loc.file == self.kernel.file else next(
                (v for v in reversed(getattr(stmt, "via", ())) if v.file == self.kernel.file), stmt.loc)
            where = f" at line {loc.line}"
        if peak > limit:
            msg = (f"{buf} overflow: the tiles live together{where} need {fmt_bytes(peak)} ({peak} B) but {buf} "
                   f"has {fmt_bytes(limit)} ({limit} B) for tiles")
        else:
            msg = (f"{buf} overflow: the tiles live together{where} need {fmt_bytes(peak)} ({peak} B) of "
                   f"{fmt_bytes(limit)} ({limit} B), but no placement without overlaps was found")
        notes = []
        for x in sorted(at_units, key=lambda x: x.order):
            size = x.stride * (x.slots - 1) + x.nbytes
            each = f"{x.slots} x {fmt_bytes(x.nbytes)} = {fmt_bytes(size)}" if x.tile.count else fmt_bytes(size)
            what = f"{x.name}[{x.slots}]" if x.tile.count else x.name
            lines = self._lines(x)
            notes.append(Diagnostic("note", f"'{what}' {each} is live here{lines}",
                                    to_location(x.tile.loc)))
        notes.append(Diagnostic("note", self._advice(at_units or [u]), None))
        raise PtoError(msg, u.tile.loc if u is not None else None, notes=tuple(notes))

    def _lines(self, u: _Unit) -> str:
        spans = [self.live.source_lines(m) for m in u.members]
        spans = [s for s in spans if s]
        if not spans:
            return ""
        first, last = spans[0][0].line, spans[-1][1].line
        if first == last:
            return f" (used on line {first})"
        return f" (used on lines {first}-{last})" if first < last else f" (first used on line {first}, last {last})"

    def _advice(self, units: list[_Unit]) -> str:
        tips = ["use smaller tiles (fewer rows or columns per step)"]
        arrays = [u for u in units if u.slots > 1]
        if arrays:
            big = max(arrays, key=lambda u: u.nbytes * (u.slots - 1))
            tips.append(f"single-buffer an array (e.g. '{big.name}[{big.slots}]' as one tile saves "
                        f"{fmt_bytes(big.stride * (big.slots - 1))})")
        tips.append("split the loop so that fewer tiles are live at once")
        default = PROFILES.get(self.profile.name)
        if default is not None and self.limit < default.buffers[self.buffer.name].alloc_limit:
            full = default.buffers[self.buffer.name].alloc_limit
            tips.append(f"or raise the limit (--capacity {self.buffer.name}={full // 1024}K)")
        return "to fit: " + "; ".join(tips)


def _warn_reuse(reporter: Reporter, r: Reuse, planner: _BufferPlanner) -> None:
    total = sum(it.span for it in planner.items if it.unit is not None)
    extra = ", and adds a cross-pipe dependence inside a loop" if r.cross_pipe else ""
    reporter.warn(
        f"{r.buffer}: '{r.tile.label}' shares bytes 0x{r.start:x}-0x{r.end - 1:x} with '{r.other.label}' "
        f"(their lifetimes do not overlap); needed because the {r.buffer} tiles take {fmt_bytes(total)} "
        f"without reuse, over the {fmt_bytes(planner.limit)} limit{extra}",
        r.tile.tile.loc, notes=(Diagnostic("note", f"'{r.other.label}' is declared here",
                                           to_location(r.other.tile.loc)),))
