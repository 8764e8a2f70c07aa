"""Run a kernel's control flow with concrete values and record what the scalar unit issues.

The result is a :class:`Trace`: every PTO instruction and sync in issue (program) order, with its
operands resolved to concrete places (buffer + byte address for tiles, pointer argument + byte
offset + 5-D shape/stride for GM windows), its scalar arguments evaluated, the exact bytes each
operand reads and writes (:mod:`footprint`), and the loop iterations it belongs to. The sync
inserter's dependence analysis, the emulator's data execution, its race and deadlock checker and
its timing model all work from the trace; none of them walks the IR again. Control flow depends
only on scalars, never on tile data, so the trace is the same whatever the data.

Where tiles live
----------------
* MANUAL kernels: ``TASSIGN(tile, addr)`` binds a tile (one array slot) to a byte address of its
  buffer; a tile used before any TASSIGN is an error. Tiles are views on the buffer's bytes, so a
  wrong placement aliases other tiles exactly as on hardware.
* AUTO kernels: every tile slot gets private storage (a fresh, never reused range of a virtual
  buffer), in program order: the reference semantics. Given a memory plan (`placement`), tiles
  sit where the plan puts them instead: what the sync inserter analyses.
* TRESHAPE / TSUBVIEW bind the alias to its base's current place plus the byte offset.
* A tile is laid out over its capacity shape Rows x Cols: row-major for BLayout::RowMajor,
  column-major for ColMajor. Fractal (NZ/ZN) inner layouts are modelled as plain row/col-major:
  the values an instruction computes are the same, only intra-tile byte positions differ.
* Instruction operands are the tile's valid region (valid rows x valid cols, evaluated). A
  tile with a fractal (boxed) inner layout counts as touched whole by every access: which of its
  bytes a window covers depends on the fractal layout, which is not modelled byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Expr, UnboundValue
from ptorewrite.analysis.footprint import Footprint, single, strided
from ptorewrite.analysis.instructions import UB_SCRATCH_OPS
from ptorewrite.arch import NUM_EVENT_IDS, TILE_TYPE_BUFFER, ArchProfile
from ptorewrite.diagnostics import Diagnostic, PtoError, to_location

Number = int | float | bool

# Spec §2: TEXTRACT reads, and TINSERT writes, only a window at (indexRow, indexCol) of the
# larger tile, shaped like the other tile's valid region. Value: (windowed operand, shaping one).
WINDOWED = {"TEXTRACT": (1, 0), "TINSERT": (0, 1)}
# TLOAD / TSTORE copy the overlap of the tile's valid region and the GM window.
CLIPPED_GM = frozenset({"TLOAD", "TSTORE"})


@dataclass(frozen=True)
class Place:
    buffer: str
    address: int


@dataclass(eq=False)
class TileOperand:
    decl: ir.TileDecl
    slot: int
    place: Place
    valid: tuple[int, int]
    access: str
    text: str

    @property
    def elem_strides(self) -> tuple[int, int]:
        """Elements between consecutive rows and consecutive columns."""
        d = self.decl
        return (d.cols, 1) if d.blayout == "RowMajor" else (1, d.rows)

    @property
    def buffer(self) -> str:
        return self.place.buffer


@dataclass(eq=False)
class GmOperand:
    tensor: ir.GmTensor
    param: str
    offset: int  # bytes from the pointer argument
    shape: tuple[int, ...]  # 5 dims, outermost first
    stride: tuple[int, ...]  # in elements
    access: str
    text: str

    @property
    def rows(self) -> int:
        """The 2-D view flattens the outer four dims into rows."""
        r = 1
        for n in self.shape[:4]:
            r *= n
        return r

    @property
    def cols(self) -> int:
        return self.shape[4]

    @property
    def extent(self) -> int:
        """One past the last byte of the window."""
        es = ir.DTYPE_BYTES[self.tensor.dtype]
        return self.offset + int((sum((n - 1) * s for n, s in zip(self.shape, self.stride)) + 1) * es)


@dataclass(eq=False)
class Access:
    footprint: Footprint
    write: bool
    what: str  # the operand as written, for reports


@dataclass(eq=False)
class Step:
    """One issued instruction or sync."""

    index: int
    kind: str  # "op", "set", "wait", "barrier"
    pipe: str  # the queue it goes to; "ALL" for pipe_barrier(PIPE_ALL)
    stmt: ir.Instr | ir.Sync
    seq: int  # scalar statements issued up to and including this one
    operands: tuple = ()  # per C++ argument: TileOperand, GmOperand or an evaluated scalar
    accesses: tuple[Access, ...] = ()
    template: dict = field(default_factory=dict)
    src: str | None = None  # set/wait: the flag's pipes and event id
    dst: str | None = None
    event: int | None = None
    iters: tuple[tuple[int, int], ...] = ()  # (id of each enclosing For, iteration number), outermost first

    @property
    def name(self) -> str:
        if self.kind == "op":
            return self.stmt.op
        if self.kind == "barrier":
            return f"pipe_barrier(PIPE_{self.pipe})"
        return f"{self.kind}_flag({self.src}->{self.dst}, {self.event})"

    @property
    def loc(self) -> ir.SourceRange:
        return self.stmt.loc

    @property
    def via(self) -> tuple[ir.SourceRange, ...]:
        return self.stmt.via

    @property
    def flag(self) -> tuple[str, str, int]:
        return (self.src, self.dst, self.event)


@dataclass(eq=False)
class Marker:
    """With `markers=True`: the point before or after an executed statement, with the scalar values
    in scope there (where the sync inserter expands candidate synchronization)."""

    stmt: ir.Stmt
    where: str  # "before" or "after"
    env: dict
    kind: str = "marker"


@dataclass
class Trace:
    kernel: ir.Kernel
    arch: ArchProfile
    steps: list[Step]
    statements: int  # scalar statements issued in total
    buffer_size: dict[str, int]  # bytes to allocate per on-chip buffer
    gm_extent: dict[str, int]  # bytes of each pointer argument the kernel reaches
    gm_dtype: dict[str, str]  # element type each pointer argument is first accessed with
    values: dict[str, Number]
    items: list = field(default_factory=list)  # with markers=True: steps and Markers, in issue order

    @property
    def mode(self) -> str:
        return self.kernel.mode


def located(message: str, stmt, notes: tuple[Diagnostic, ...] = ()) -> PtoError:
    via = tuple(Diagnostic("note", "inlined from here", to_location(v)) for v in reversed(getattr(stmt, "via", ())))
    return PtoError(message, stmt.loc, notes + via)


def check_runtime_values(kernel: ir.Kernel, values: Mapping[str, Number]) -> None:
    missing = [n for n in kernel.runtime_values if n not in values]
    if missing:
        hints = {"block_idx": "--block-idx N", "block_num": "--block-num N"}
        how = ", ".join(hints.get(n, f"--set {n}=VALUE") for n in missing)
        raise PtoError(f"the kernel needs runtime value(s) {', '.join(missing)} to run; give them with {how}",
                       to_location(ir.SourceRange(kernel.file, 1, 1, 1, 1, 0, 0)))


Placement = Callable[[ir.TileDecl, int], int]  # (tile, slot) -> byte address in its buffer


def _implemented() -> frozenset[str] | set[str]:
    """Ops the emulator can execute (its numpy semantics are imported only when needed)."""
    from ptorewrite.emulator import semantics

    return semantics.implemented()


class Machine:
    """Walks the IR once with concrete values, producing the trace."""

    def __init__(self, kernel: ir.Kernel, arch: ArchProfile, values: Mapping[str, Number],
                 placement: Placement | None = None, markers: bool = False, require_semantics: bool = True):
        check_runtime_values(kernel, values)
        self.kernel = kernel
        self.arch = arch
        self.manual = kernel.mode == "manual"
        self.placement = placement
        self.markers = markers
        self.require_semantics = require_semantics
        self.iters: list[tuple[int, int]] = []
        self.items: list = []
        self.env: dict[str, Number] = dict(values)
        self.values = dict(values)
        self.steps: list[Step] = []
        self.seq = 0
        self.places: dict[tuple[int, int], Place] = {}  # (id(decl), slot) -> place
        self.private_top: dict[str, int] = {}  # AUTO: next free byte per virtual buffer
        self.buffer_size = {name: b.capacity for name, b in arch.buffers.items()}
        self.gm_extent: dict[str, int] = {}
        self.gm_dtype: dict[str, str] = {}
        self._footprints: dict[tuple, Footprint | None] = {}
        self._scratch = None
        if (self.manual or placement is not None) and arch.ub_scratch is not None:
            self._scratch = single("UB", *arch.ub_scratch)

    # ------------------------------------------------------------------ evaluation

    def eval(self, e: Expr, stmt) -> Number:
        try:
            return e.eval(self.env)
        except UnboundValue as u:
            raise located(f"'{u.name}' has no value here; give it with --set {u.name}=VALUE", stmt) from None
        except (ZeroDivisionError, TypeError) as x:
            raise located(f"cannot evaluate {e}: {x}", stmt) from None

    def run(self) -> Trace:
        self.block(self.kernel.body)
        return Trace(self.kernel, self.arch, self.steps, self.seq, self.buffer_size, self.gm_extent,
                     self.gm_dtype, self.values, self.items)

    def block(self, b: ir.Block) -> None:
        for s in b.stmts:
            self.stmt(s)

    def stmt(self, s: ir.Stmt) -> None:
        if not self.markers:
            self.execute(s)
            return
        self.items.append(Marker(s, "before", dict(self.env)))
        self.execute(s)
        self.items.append(Marker(s, "after", dict(self.env)))

    def execute(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.Instr):
            self.seq += 1
            self.instr(s)
        elif isinstance(s, ir.Sync):
            if self.manual:  # AUTO mode: syncs and TASSIGN compile to nothing
                self.seq += 1
                self.sync(s)
        elif isinstance(s, ir.For):
            self.loop(s)
        elif isinstance(s, ir.If):
            if self.eval(s.cond, s):
                self.stmt(s.then)
            elif s.other is not None:
                self.stmt(s.other)
        elif isinstance(s, ir.Block):
            self.block(s)
        elif isinstance(s, ir.Assign):
            self.seq += 1
            self.env[s.var] = self.eval(s.value, s)
        elif isinstance(s, ir.TileAssign):
            if self.manual:
                self.seq += 1
                self.tassign(s)
        elif isinstance(s, ir.AliasDef):
            self.seq += 1
            self.alias(s)
        else:  # pragma: no cover - the IR has no other statements
            raise TypeError(type(s).__name__)

    def loop(self, s: ir.For) -> None:
        v = self.eval(s.start, s)
        step = self.eval(s.step, s)
        k = 0
        if step == 0:
            raise located("loop step is 0", s)
        while True:
            stop = self.eval(s.stop, s)
            if step > 0:
                go = v <= stop if s.inclusive else v < stop
            else:
                go = v >= stop if s.inclusive else v > stop
            if not go:
                break
            self.env[s.var] = v
            self.iters.append((id(s), k))
            self.stmt(s.body)
            self.iters.pop()
            v += step
            k += 1
        self.env.pop(s.var, None)

    # ------------------------------------------------------------------ placement

    def slot_of(self, ref: ir.TileRef, stmt) -> int:
        if ref.index is None:
            return 0
        i = self.eval(ref.index, stmt)
        if not isinstance(i, int) or not 0 <= i < ref.tile.slots:
            raise located(f"index {i} of '{ref.tile.cpp_name or ref.tile.name}' is outside 0..{ref.tile.slots - 1}", stmt)
        return i

    def tassign(self, s: ir.TileAssign) -> None:
        slot = self.slot_of(s.ref, s)
        addr = self.eval(s.address, s)
        decl = s.ref.tile
        buf = self.arch.buffer_of(decl.tile_type)
        if not isinstance(addr, int) or addr < 0 or addr + decl.nbytes > buf.capacity:
            raise located(f"TASSIGN places '{s.ref}' ({decl.nbytes} B) at {addr!r}, outside {buf.name} "
                          f"({buf.capacity} B)", s)
        self.places[(id(decl), slot)] = Place(buf.name, addr)

    def alias(self, s: ir.AliasDef) -> None:
        base = self.place_of(s.src, s)
        off = self.eval(s.offset_bytes, s)
        self.places[(id(s.dst.tile), self.slot_of(s.dst, s))] = Place(base.buffer, base.address + int(off))

    def place_of(self, ref: ir.TileRef, stmt) -> Place:
        slot = self.slot_of(ref, stmt)
        key = (id(ref.tile), slot)
        p = self.places.get(key)
        if p is not None:
            return p
        decl = ref.tile
        if self.manual:
            raise located(f"'{ref}' is used before any TASSIGN gives it an address", stmt)
        if self.placement is not None:
            name = TILE_TYPE_BUFFER[decl.tile_type]
            p = self.places[key] = Place(name, self.placement(decl, slot))
            return p
        # AUTO: private storage, placed once and kept for the tile's lifetime.
        name = TILE_TYPE_BUFFER[decl.tile_type]
        align = self.arch.buffers[name].alignment
        top = -(-self.private_top.get(name, 0) // align) * align
        self.private_top[name] = top + decl.nbytes
        self.buffer_size[name] = max(self.buffer_size[name], top + decl.nbytes)
        p = self.places[key] = Place(name, top)
        return p

    # ------------------------------------------------------------------ issue

    def sync(self, s: ir.Sync) -> None:
        if s.kind == "barrier":
            self.issue(Step(len(self.steps), "barrier", s.src, s, self.seq))
            return
        ev = self.eval(s.event, s)
        if not isinstance(ev, int) or not 0 <= ev < NUM_EVENT_IDS:
            raise located(f"event id {ev!r} is outside 0..{NUM_EVENT_IDS - 1}", s)
        pipe = s.src if s.kind == "set" else s.dst
        self.issue(Step(len(self.steps), s.kind, pipe, s, self.seq, src=s.src, dst=s.dst, event=ev))

    def issue(self, step: Step) -> None:
        self.steps.append(step)
        if self.markers:
            self.items.append(step)

    def instr(self, s: ir.Instr) -> None:
        if self.require_semantics and s.op not in _implemented():
            raise located(f"the emulator does not implement {s.op}", s)
        operands = []
        for a in s.args:
            if a.kind == "tile":
                operands.append(self.tile_operand(a, s))
            elif a.kind == "gm":
                operands.append(self.gm_operand(a, s))
            else:
                operands.append(self.eval(a.value, s))
        accesses = self.accesses(s, operands)
        self.issue(Step(len(self.steps), "op", s.pipe, s, self.seq, tuple(operands), tuple(accesses),
                               template_dict(s.template_args), iters=tuple(self.iters)))

    def tile_operand(self, a: ir.Arg, s: ir.Instr) -> TileOperand:
        ref: ir.TileRef = a.value
        decl = ref.tile
        if decl.elem_bytes != int(decl.elem_bytes):
            raise located(f"packed {decl.dtype} tiles are not supported by the emulator", s)
        vr = decl.rows if decl.valid_rows is None else int(self.eval(decl.valid_rows, s))
        vc = decl.cols if decl.valid_cols is None else int(self.eval(decl.valid_cols, s))
        if not (0 <= vr <= decl.rows and 0 <= vc <= decl.cols):
            raise located(f"valid shape {vr}x{vc} of '{ref}' exceeds its {decl.rows}x{decl.cols} capacity", s)
        return TileOperand(decl, self.slot_of(ref, s), self.place_of(ref, s), (vr, vc), a.access, a.text)

    def gm_operand(self, a: ir.Arg, s: ir.Instr) -> GmOperand:
        g: ir.GmTensor = a.value.tensor
        shape = tuple(int(self.eval(x, s)) for x in g.shape)
        stride = tuple(int(self.eval(x, s)) for x in g.stride)
        off = int(self.eval(g.offset_bytes, s))
        if any(n < 0 for n in shape) or any(x < 0 for x in stride) or off < 0:
            raise located(f"GM window '{g.name}' has a negative shape, stride or offset", s)
        op = GmOperand(g, g.param, off, shape, stride, a.access, a.text)
        self.gm_extent[g.param] = max(self.gm_extent.get(g.param, 0), op.extent)
        self.gm_dtype.setdefault(g.param, g.dtype)
        return op

    # ------------------------------------------------------------------ footprints

    def accesses(self, s: ir.Instr, operands: list) -> list[Access]:
        out: list[Access] = []
        windows = self.windows(s, operands)
        tile = next((o for o in operands if isinstance(o, TileOperand)), None)
        for i, o in enumerate(operands):
            if isinstance(o, TileOperand):
                fp = self.tile_footprint(o, windows.get(i), s)
            elif isinstance(o, GmOperand):
                clip = tile.valid if (s.op in CLIPPED_GM and tile is not None) else None
                fp = self.gm_footprint(o, clip)
            else:
                continue
            if fp is None:
                continue
            if "r" in o.access:
                out.append(Access(fp, False, o.text))
            if "w" in o.access:
                out.append(Access(fp, True, o.text))
        if self._scratch is not None and s.op in UB_SCRATCH_OPS:
            out.append(Access(self._scratch, True, "the hidden UB scratch"))
        return out

    def windows(self, s: ir.Instr, operands: list) -> dict[int, tuple[int, int, int, int]]:
        if s.op not in WINDOWED:
            return {}
        tiles = [i for i, o in enumerate(operands) if isinstance(o, TileOperand)]
        nums = [v for v in operands if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if len(tiles) < 2:
            return {}
        big, shaper = (tiles[k] for k in WINDOWED[s.op])
        r0, c0 = (list(map(int, nums)) + [0, 0])[:2]
        vr, vc = operands[big].valid
        h, w = operands[shaper].valid
        return {big: (r0, c0, max(0, min(h, vr - r0)), max(0, min(w, vc - c0)))}

    def tile_footprint(self, o: TileOperand, window, s) -> Footprint | None:
        if o.decl.slayout != "NoneBox":
            window = (0, 0, o.decl.rows, o.decl.cols)  # fractal layout: the whole tile
        r0, c0, nr, nc = window or (0, 0, *o.valid)
        rs, cs = o.elem_strides
        es = int(o.decl.elem_bytes)
        base = o.place.address + (r0 * rs + c0 * cs) * es
        key = (o.place.buffer, base, es, nr, rs, nc, cs)
        if key not in self._footprints:
            fp = strided(o.place.buffer, base, es, [(nr, rs), (nc, cs)])
            cap = self.buffer_size[o.place.buffer]
            if fp is not None and fp.hi > cap:
                raise located(f"'{o.text}' reaches byte {fp.hi:#x} of {o.place.buffer}, beyond its {cap} B", s)
            self._footprints[key] = fp
        return self._footprints[key]

    def gm_footprint(self, o: GmOperand, clip) -> Footprint | None:
        es = int(ir.DTYPE_BYTES[o.tensor.dtype])
        rows, cols = o.rows, o.cols
        if clip is not None:
            rows, cols = min(rows, clip[0]), min(cols, clip[1])
        key = ("GM:" + o.param, o.offset, es, o.shape, o.stride, rows, cols)
        if key not in self._footprints:
            if o.shape[:3] == (1, 1, 1):
                dims = [(rows, o.stride[3]), (cols, o.stride[4])]
            else:  # a general 5-D window: whole outer dims (only 2-D windows are clipped by rows)
                dims = list(zip(o.shape[:4], o.stride[:4])) + [(cols, o.stride[4])]
            self._footprints[key] = strided("GM:" + o.param, o.offset, es, dims)
        return self._footprints[key]


def template_dict(targs: tuple[str, ...]) -> dict[str, str]:
    """`AccPhase::Final` -> {"AccPhase": "Final"}; other arguments are kept by position."""
    out: dict[str, str] = {}
    for i, t in enumerate(targs):
        key, sep, value = t.rpartition("::")
        if sep:
            out[key.split("::")[-1].strip()] = value.strip()
        else:
            out[str(i)] = t.strip()
    return out


def unroll(kernel: ir.Kernel, arch: ArchProfile, values: Mapping[str, Number],
           placement: Placement | None = None, markers: bool = False, require_semantics: bool = True) -> Trace:
    """The kernel's issued instructions and syncs with concrete operands (see module doc)."""
    return Machine(kernel, arch, values, placement, markers, require_semantics).run()
