"""One core of a cluster as the planner sees it: the other cores' side of the cross-core operations.

A cluster kernel is planned once per core type (`transform.rewrite.planned_clusters`). Its cross-core
operations are already IR statements (parse.fifo, fifo_a2a3, mpipe): `CrossSync` flags, and the
moves into and out of FIFO slots (TMOV / TINSERT / TSTORE / TLOAD), with the slot tiles pointed at
their slots by `TileAssign` statements whose address the pipe's counters give. For one core's
plan:

- A FIFO slot tile (a tile the lowering points at a slot: its address names the pipe's own
  counters) is not placed by the memory planner. When its slots lie in this core's buffer (the
  consumer's UB or L1), every access to it is counted on the whole region of the ring, SlotNum x
  SlotSize bytes (every slot the counter can name), and that region is reserved: the kernel's own
  tiles are placed around it. When they lie in the other core's buffer (a push's move), the
  accesses are that core's and are not counted here.
- A cross-core flag is a fixed instruction on its pipe that writes the data the cores share: the
  FIFO regions in this core's buffers and the GM arguments both core types access. A set is then
  ordered after every earlier access to them on another pipe (the set covers only its own pipe's
  work), and every later access on another pipe is ordered after a wait (a wait stalls only its
  pipe), by the ordinary dependences; only in those directions (`deps._access`, `orders_later`).
  A wait on PIPE_S (a2a3 `wait_flag_dev`) stalls the whole
  core: nothing after it needs a flag for it, so it touches nothing here.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import BinOp, Const, Expr, Var, binop
from ptorewrite.analysis.footprint import Footprint, single
from ptorewrite.arch import TILE_TYPE_BUFFER
from ptorewrite.diagnostics import PtoError

# The buffers each core type owns (GM is shared; see emulator.cluster).
OWN_BUFFERS = {"vec": frozenset({"UB"}), "cube": frozenset({"L1", "L0A", "L0B", "L0C", "BIAS", "FB", "L0A_SCALE", "L0B_SCALE"})}
CROSS_OP = {"set": "CROSS_SET", "wait": "CROSS_WAIT"}  # the pseudo-instructions' names in the planner's trace
MAX_COUNTER_PERIOD = 256  # values of a slot counter tried to bound a ring's region


@dataclass
class SlotRing:
    """The bytes one FIFO slot tile can be pointed at in this core's buffer."""

    buffer: str
    lo: int
    hi: int
    tiles: list[str] = field(default_factory=list)  # the slot tiles that use it
    loc: ir.SourceRange | None = None


@dataclass
class ClusterView:
    core: str
    slot_tiles: dict[int, Footprint | None]  # id(TileDecl) -> its ring here (None: in another core's buffer)
    rings: list[SlotRing]
    shared_gm: frozenset[str]  # GM arguments both core types access
    # Tiles this core does not place: its FIFO slot tiles, and tiles of the other core type's
    # buffers it declares but never uses (a declaration both core types compile).
    unplaced: frozenset[int] = frozenset()
    # The kernel's own tiles another core's explicit-index FIFO (TMPipe) moves into: its entries.
    entry_tiles: list[ir.TileDecl] = field(default_factory=list)
    made: frozenset[int] = frozenset()  # tiles the FIFO lowering made (no name in the source)
    # GM arguments every core accesses only through FIFO moves (a TPUSH's store, a TPOP's load):
    # the ring's own flags hand them over, no other flag needs to.
    ring_gm: frozenset[str] = frozenset()
    # id(cross_op) -> (the slot regions, the GM arguments) of the FIFO operation the flag is part of
    flag_data: dict[int, tuple[list[Footprint], frozenset[str]]] = field(default_factory=dict)
    _ring_data: dict[tuple, tuple[list[Footprint], frozenset[str]]] = field(default_factory=dict)
    _ops: dict[int, ir.Instr] = field(default_factory=dict)
    _silent: set[int] = field(default_factory=set)  # ids of flags that touch nothing (`stalls_the_core`)
    # Slot tiles planned slot by slot (`split_local_slots`): id(TileDecl) -> each local slot's address.
    slot_places: dict[int, tuple[int, ...]] = field(default_factory=dict)

    def reserved(self) -> dict[str, list[tuple[int, int]]]:
        out: dict[str, list[tuple[int, int]]] = {}
        for r in self.rings:
            out.setdefault(r.buffer, []).append((r.lo, r.hi))
        return out

    def cross_op(self, s: ir.CrossSync, uid: int) -> ir.Instr:
        """The instruction a cross-core flag is in this core's plan."""
        got = self._ops.get(id(s))
        if got is None:
            got = self._ops[id(s)] = ir.Instr(CROSS_OP[s.kind], s.pipe, (), (), s.loc, s.via, uid=uid)
            data = self._ring_data.get(_source_key(s))
            if data is not None:
                self.flag_data[id(got)] = data
        return got

    def is_cross_op(self, s: ir.Instr) -> bool:
        return s.op in CROSS_OP.values() and any(x is s for x in self._ops.values())

    def stalls_the_core(self, s: ir.Instr) -> bool:
        """A flag that touches nothing in the plan: a wait on PIPE_S (a2a3 `wait_flag_dev`), after
        which everything is issued after it; or a pipe's destructor at the kernel's end (its
        statements carry the declaration's place in the source, before the kernel's other
        statements, so no line may be written next to them; nothing follows them to order)."""
        return (s.op == CROSS_OP["wait"] and s.pipe == "S") or id(s) in self._silent

    def orders_later(self, s: ir.Instr) -> bool:
        """Whether the later accesses on this core meet a cross-core set's write (deps). A FIFO's
        set (`flag_data`) is met: the next move into one of its slots follows the protocol's wait
        for that slot on every run, also on the paths the analysis cannot tell apart (a wait taken
        every other push). A flag object's set (a custom sync, a5 TFREE) is not: a set orders
        nothing on its core after it, so the later accesses meet the ones before it instead."""
        return s.op != CROSS_OP["set"] or id(s) in self.flag_data

    def cross_accesses(self, s: ir.Instr | None = None) -> list[tuple[Footprint, str]]:
        """What a cross-core flag writes here, each with how a reason names it: a flag of one FIFO
        (`ring_data`) its own ring's slots and GM, and the shared GM the kernel's own instructions
        access; any other flag everything the cores share."""
        rings, gm = self.rings, sorted(self.shared_gm)
        own = self.flag_data.get(id(s)) if s is not None else None
        if own is not None:
            local, params = own
            rings = [r for r in self.rings if r.lo < r.hi and any(
                fp.space == r.buffer and fp.lo < r.hi and r.lo < fp.hi for fp in local)]
            gm = sorted((set(gm) - self.ring_gm) | (set(gm) & params))
        out = [(single(r.buffer, r.lo, r.hi), f"the FIFO slots of {', '.join(r.tiles)}") for r in rings]
        out += [(single("GM:" + p, 0, 1 << 62), f"{p} (both core types access it)") for p in gm]
        return out


def slot_assigns(kernel: ir.Kernel) -> list[ir.TileAssign]:
    """The TileAssign statements the FIFO lowering made: their address names a pipe's counter (a
    name no C++ variable can have: it holds a '.' or an '@')."""
    return [s for s in ir.walk(kernel.body) if isinstance(s, ir.TileAssign) and s.address.free_vars()
            and all("." in v or "@" in v for v in s.address.free_vars())]


def _moduli(e: Expr) -> list[int]:
    out = []
    todo = [e]
    while todo:
        x = todo.pop()
        if isinstance(x, BinOp):
            if x.op == "%" and isinstance(x.rhs, Const) and isinstance(x.rhs.value, int):
                out.append(x.rhs.value)
            todo += [x.lhs, x.rhs]
    return out


def _addresses(s: ir.TileAssign) -> set[int]:
    names = sorted(s.address.free_vars())
    period = math.lcm(*_moduli(s.address)) if _moduli(s.address) else 0
    if not period or period ** len(names) > MAX_COUNTER_PERIOD ** 2:
        raise PtoError("auto2manual cannot bound the slots this FIFO tile is pointed at (its address "
                       f"{s.address} is not a counter modulo the slot count)", s.loc)
    out = set()
    for values in itertools.product(range(period), repeat=len(names)):
        v = s.address.eval(dict(zip(names, values)))
        if not isinstance(v, int):
            raise PtoError(f"auto2manual cannot bound the slots this FIFO tile is pointed at ({s.address})", s.loc)
        out.add(v)
    return out


def cluster_view(kernel: ir.Kernel, others: list[ir.Kernel]) -> ClusterView:
    own = OWN_BUFFERS.get(kernel.core, frozenset())
    slot_tiles: dict[int, Footprint | None] = {}
    rings: list[SlotRing] = []
    spans: dict[int, tuple[str, int, int, ir.TileAssign]] = {}
    for s in slot_assigns(kernel):
        t = s.ref.tile
        buf = TILE_TYPE_BUFFER[t.tile_type]
        addrs = _addresses(s)
        lo, hi = min(addrs), max(addrs) + t.nbytes
        old = spans.get(id(t))
        spans[id(t)] = (buf, lo, hi, s) if old is None else (buf, min(lo, old[1]), max(hi, old[2]), old[3])
    for t in kernel.tiles:
        if id(t) not in spans:
            continue
        buf, lo, hi, s = spans[id(t)]
        if buf not in own:
            slot_tiles[id(t)] = None
            continue
        ring = next((r for r in rings if r.buffer == buf and r.lo < hi and lo < r.hi), None)
        if ring is None:
            ring = SlotRing(buf, lo, hi, loc=s.loc)
            rings.append(ring)
        ring.lo, ring.hi = min(ring.lo, lo), max(ring.hi, hi)
        ring.tiles.append(t.cpp_name or t.name)
    for t in kernel.tiles:
        if id(t) in spans and id(t) not in slot_tiles:
            buf, lo, hi, _ = spans[id(t)]  # every slot its counter can name (not the slots of
            slot_tiles[id(t)] = single(buf, lo, hi)  # another ring between them)
    # An explicit-index FIFO's entry (TMPipe): an alias the lowering made of a tile of the other
    # core type's buffer, at the entry the producer writes; that core places the tile.
    views = set()  # own-buffer entries and strips: where the alias puts them, never placed on their own
    for s in fifo_entries(kernel):
        root = s.src.tile
        if TILE_TYPE_BUFFER[root.tile_type] not in own:
            slot_tiles[id(s.dst.tile)] = None
            slot_tiles[id(root)] = None
        else:
            views.add(id(s.dst.tile))
    theirs_entries = {(s.src.tile.cpp_name or s.src.tile.name) for k in others for s in fifo_entries(k)}
    entry_tiles = [t for t in kernel.tiles if (t.cpp_name or t.name) in theirs_entries
                   and TILE_TYPE_BUFFER[t.tile_type] in own]
    used = {id(a.value.tile) for i in kernel.instructions() for a in i.tile_args}
    foreign = set()
    for t in kernel.tiles:
        if id(t) in slot_tiles or TILE_TYPE_BUFFER[t.tile_type] in own or t.alias is not None:
            continue
        if id(t) in used:
            where = next(i for i in kernel.instructions() if any(a.value.tile is t for a in i.tile_args))
            raise PtoError(f"the {kernel.core} core uses '{t.cpp_name or t.name}', a tile in the other core type's "
                           f"{TILE_TYPE_BUFFER[t.tile_type]}: auto2manual places each core's tiles in its own "
                           "buffers and cannot choose an address both core types agree on (move it through a "
                           "TPipe, or place it with TASSIGN)", where.loc)
        foreign.add(id(t))
    mine = _gm_params(kernel)
    theirs = set().union(*(_gm_params(k) for k in others)) if others else set()
    made = {id(s.dst.tile) for s in fifo_entries(kernel)} | \
        {id(s.ref.tile) for s in slot_assigns(kernel) if "." in (s.ref.tile.cpp_name or s.ref.tile.name)}
    shared = mine & theirs
    # A GM argument no core accesses outside a FIFO operation is one ring's (or several rings')
    # slots: only the flags of the operations that move through it hand it over.
    outside = set().union(*(_gm_params(k, _protocol_keys(k), inside=False) for k in [kernel, *others]))
    ring_gm = frozenset(shared - outside)
    # The buffers of this core another core's FIFO operations point slot tiles into (a5: the
    # producer moves into the consumer's slots). Slots only this core's own moves fill (a2a3: the
    # consumer loads its local slots from the GM ring) are private to it: a flag does not hand them
    # over, and the planner orders their accesses like any tile's.
    handed = {TILE_TYPE_BUFFER[s.ref.tile.tile_type] for k in others for s in slot_assigns(k)} & own
    ring_data = {}
    for key in _protocol_keys(kernel):
        local = [fp for t in _protocol_tiles(kernel, key)
                 if (fp := slot_tiles.get(id(t))) is not None and fp.space in handed]
        params = frozenset(_gm_params(kernel, {key}, inside=True) & ring_gm)
        if local or params:  # a flag that moves nothing (a5 TFREE, a custom sync): everything
            ring_data[key] = (local, params)
    return ClusterView(kernel.core, slot_tiles, rings, frozenset(shared),
                       frozenset(set(slot_tiles) | foreign | views), entry_tiles, frozenset(made),
                       ring_gm=ring_gm, _ring_data=ring_data)


def _source_key(s) -> tuple | None:
    loc = getattr(s, "loc", None)
    return None if loc is None else (loc.file, loc.offset, loc.end_offset, tuple(getattr(s, "via", ())))


def _protocol_keys(kernel: ir.Kernel) -> set[tuple]:
    """The source statements (with the calls they were reached through) that lowered to a
    cross-core flag: a FIFO operation's parts are the statements sharing one."""
    return {k for s in ir.walk(kernel.body) if isinstance(s, ir.CrossSync) and (k := _source_key(s)) is not None}


def _protocol_tiles(kernel: ir.Kernel, key: tuple) -> list[ir.TileDecl]:
    out = []
    for s in ir.walk(kernel.body):
        if _source_key(s) != key:
            continue
        if isinstance(s, ir.TileAssign):
            out.append(s.ref.tile)
        elif isinstance(s, ir.Instr):
            out += [a.value.tile for a in s.tile_args]
    return out


def fifo_entries(kernel: ir.Kernel) -> list[ir.AliasDef]:
    """The aliases the FIFO lowering made (TMPipe entries): a name no C++ variable can have."""
    return [s for s in ir.walk(kernel.body) if isinstance(s, ir.AliasDef)
            and "." in (s.dst.tile.cpp_name or s.dst.tile.name)]


def _gm_params(kernel: ir.Kernel, keys: set[tuple] | None = None, inside: bool = True) -> set[str]:
    """The GM arguments the kernel's instructions access (with `keys`: those of the statements
    with one of these source keys, or with `inside` False those of every other statement)."""
    out = set()
    for s in ir.walk(kernel.body):
        if isinstance(s, ir.Instr):
            if keys is not None and (_source_key(s) in keys) != inside:
                continue
            for a in s.args:
                if a.kind == "gm":
                    out.add(a.value.tensor.param)
                elif a.kind == "raw" and getattr(a.value, "space", "") == "GM" and a.value.param:
                    out.add(a.value.param)
    return out


def planning_kernel(kernel: ir.Kernel, view: ClusterView) -> ir.Kernel:
    """The kernel as its core's planner sees it: every cross-core flag an instruction on its pipe
    (`ClusterView.cross_op`). The statements that hold none are the kernel's own; the others are
    copies."""
    uids = itertools.count(max((i.uid for i in kernel.instructions()), default=0) + 1)

    slots = {id(a) for a in slot_assigns(kernel)}
    # The kernel's last statements that the source places earlier than the ones before them: the
    # pipes' destructors (written at their declarations).
    seen = -1
    for x in kernel.body.stmts:
        loc = getattr(x, "loc", None)
        if loc is None or loc.file != kernel.file:
            continue
        if loc.offset < seen:
            for y in ir.walk(x):
                if isinstance(y, ir.CrossSync):
                    view._silent.add(id(view.cross_op(y, next(uids))))
        seen = max(seen, loc.offset)

    def protocol(x: ir.Stmt) -> bool:
        return any(isinstance(y, ir.CrossSync) or id(y) in slots for y in ir.walk(x))

    def subst(s: ir.Stmt) -> ir.Stmt | None:
        if isinstance(s, ir.CrossSync):
            return view.cross_op(s, next(uids))
        if not protocol(s):
            return s
        if isinstance(s, ir.Block):
            return replace(s, stmts=_grouped(s.stmts, protocol, subst))
        if isinstance(s, ir.For):
            return replace(s, body=subst(s.body))
        if isinstance(s, ir.If):
            return replace(s, then=subst(s.then), other=subst(s.other) if s.other is not None else None)
        return s

    planned = replace(kernel, body=subst(kernel.body), cluster=view)
    split_local_slots(planned, view)
    return planned


class _NoSplit(Exception):
    pass


def split_local_slots(kernel: ir.Kernel, view: ClusterView) -> None:
    """Plan the local slots of a ring in this core's buffer as a multi-buffer.

    A pop points its tile at slot `counter % LocalSlotNum` and counts the tile (`counter += 1`),
    as pto-isa's pipe does. Where every access to the tile follows its pop by a number of that
    ring's counts known on every path (`_lags`: d, usually 1 after the pop and 0 in the pop's own
    move), the tile there is slot `(counter - d) % LocalSlotNum`, an index the planner takes like
    an array's: each slot gets its own place (the pipe's address of that slot) and its own event
    ids, written with the pipe's own count (`pipe.cons.getTileId()`, transform.sync_emit). A tile
    whose lag is not known somewhere (a pop on one path only, another tile popped from the ring in
    between) stays the whole ring. The slot count is the declared one: the pipe's addresses."""
    for s in slot_assigns(kernel):
        t = s.ref.tile
        if id(t) in view.slot_places or view.slot_tiles.get(id(t)) is None or t.count is not None:
            continue
        form = _slot_form(kernel, t)
        if form is None:
            continue
        counter, addresses = form
        try:
            lags = _lags(kernel.body, t, counter)
        except _NoSplit:
            continue
        n = len(addresses)
        t.count = n
        view.slot_places[id(t)] = tuple(addresses)
        for x in kernel.instructions():
            d = lags.get(id(x))
            if d is None:
                continue
            count: Expr = Var(counter) if d == 0 else binop("-", Var(counter), Const(d))
            ref = ir.TileRef(t, binop("%", count, Const(n)))
            x.args = tuple(replace(a, value=ref) if a.kind == "tile" and a.value.tile is t else a for a in x.args)


def _slot_form(kernel: ir.Kernel, t: ir.TileDecl) -> tuple[str, list[int]] | None:
    """(the counter, the address of each local slot) when every pop points the tile at
    `base + (counter % N) * size` with one counter and N >= 2 distinct addresses."""
    forms = {(s.address, s.ref.index) for s in slot_assigns(kernel) if s.ref.tile is t}
    if len(forms) != 1:
        return None
    address, index = forms.pop()
    names = address.free_vars()
    moduli = set(_moduli(address))
    if index is not None or len(names) != 1 or len(moduli) != 1:
        return None
    (counter,), (n,) = names, moduli
    try:
        addresses = [address.eval({counter: k}) for k in range(2 * n)]
    except Exception:  # noqa: BLE001 - an address the counter alone does not give
        return None
    if n < 2 or addresses[:n] != addresses[n:] or len(set(addresses[:n])) != n or \
            not all(isinstance(a, int) for a in addresses):
        return None
    return counter, addresses[:n]


def _lags(body: ir.Block, t: ir.TileDecl, counter: str) -> dict[int, int]:
    """id(instruction) -> how many times the ring's counter has counted since the pop that
    pointed `t` where the instruction accesses it, the same on every path to it; _NoSplit when
    some access has no such number."""
    lags: dict[int, int] = {}
    step_one = binop("+", Var(counter), Const(1))

    def join(a, b):
        return a if a == b else None

    def run(stmts, d, record):
        for x in stmts:
            d = step(x, d, record)
        return d

    def step(x, d, record):
        if isinstance(x, ir.TileAssign):
            return 0 if x.ref.tile is t else d
        if isinstance(x, ir.AliasDef):
            if x.src.tile is t or x.dst.tile is t:
                raise _NoSplit
            return d
        if isinstance(x, ir.Assign):
            if x.var != counter:
                return d
            return d + 1 if d is not None and x.value == step_one else None
        if isinstance(x, ir.Instr):
            if record and any(a.value.tile is t for a in x.tile_args) and \
                    (d is None or lags.setdefault(id(x), d) != d):
                raise _NoSplit
            return d
        if isinstance(x, ir.Block):
            return run(x.stmts, d, record)
        if isinstance(x, ir.If):
            return join(run(x.then.stmts, d, record), run(x.other.stmts, d, record) if x.other is not None else d)
        if isinstance(x, ir.For):
            entry = d
            for _ in range(4):  # the lattice is a number or unknown: two rounds reach the fixpoint
                nxt = join(d, run(x.body.stmts, entry, False))
                if nxt == entry:
                    break
                entry = nxt
            else:
                entry = None
            return join(d, run(x.body.stmts, entry, record))
        return d

    run(body.stmts, None, True)
    return lags


def _grouped(stmts: list[ir.Stmt], protocol, subst) -> list[ir.Stmt]:
    """The statements of a block with each run that one source statement lowered to (a TPUSH: its
    wait, its move, its signal) in one plain block of its own: the planner then places its syncs
    before or after the source statement, never between the parts it cannot be written between."""
    out: list[ir.Stmt] = []
    k = 0
    while k < len(stmts):
        loc, via = getattr(stmts[k], "loc", None), getattr(stmts[k], "via", ())
        j = k + 1
        while j < len(stmts) and _same_source(getattr(stmts[j], "loc", None), loc) and \
                getattr(stmts[j], "via", ()) == via:
            j += 1
        run = stmts[k:j]
        parts = [y for y in (subst(x) for x in run) if y is not None]
        if j - k > 1 and any(protocol(x) for x in run) and loc is not None:
            out.append(ir.Block(parts))
        else:
            out += parts
        k = j
    return out


def _same_source(a: ir.SourceRange | None, b: ir.SourceRange | None) -> bool:
    return a is not None and b is not None and (a.file, a.offset, a.end_offset) == (b.file, b.offset, b.end_offset)
