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

import re
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from ptorewrite.analysis import expr as ex
from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Expr
from ptorewrite.analysis.footprint import Footprint, single, strided
from ptorewrite.analysis.instructions import (
    SIMT_GATHER_SEMAPHORE,
    drains_before,
    is_scratch,
    l1_gather_part,
    scratch_reach,
    uses_hidden_scratch,
    vector_barrier_inside,
    window_position,
    with_fp_forms,
)
from ptorewrite.analysis.scalars import branch_only_values, decided_condition_key, steering_values
from ptorewrite.analysis.unit_flags import UnitFlags, is_unit_flag_event, region_of
from ptorewrite.arch import CROSS_CORE_SEMAPHORES, NUM_EVENT_IDS, TILE_TYPE_BUFFER, ArchProfile
from ptorewrite.diagnostics import Diagnostic, PtoError, to_location
from ptorewrite.emulator import DEFAULT_MAX_INSTANCES

Number = int | float | bool

# Spec §2: TEXTRACT reads, and TINSERT writes, only a window at (indexRow, indexCol) of the
# larger tile, shaped like the other tile's valid region. Value: (windowed operand, shaping one).
# The fixpipe forms' Scaling tile comes third and takes no part in the window.
WINDOWED = {n: (1, 0) for n in with_fp_forms("TEXTRACT")} | {n: (0, 1) for n in with_fp_forms("TINSERT")}
# TLOAD / TSTORE copy the overlap of the tile's valid region and the GM window.
CLIPPED_GM = with_fp_forms("TLOAD", "TSTORE")


@dataclass(frozen=True)
class Place:
    buffer: str
    address: int


@dataclass(eq=False, slots=True)
class TileOperand:
    decl: ir.TileDecl
    slot: int
    place: Place
    valid: tuple[int, int]
    access: str
    text: str
    valid_known: bool = True  # False: a bounded trace's stand-in (the full tile) for a value not known

    @property
    def elem_strides(self) -> tuple[int, int]:
        """Elements between consecutive rows and consecutive columns."""
        d = self.decl
        return (d.cols, 1) if d.blayout == "RowMajor" else (1, d.rows)

    @property
    def buffer(self) -> str:
        return self.place.buffer


@dataclass(eq=False, slots=True)
class GmOperand:
    tensor: ir.GmTensor
    param: str
    offset: int  # bytes from the pointer argument
    shape: tuple[int, ...]  # 5 dims, outermost first
    stride: tuple[int, ...]  # in elements
    access: str
    text: str
    whole: bool = False  # placed by a value read at run time: counted as every byte of the argument

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
        es = max(1, ir.DTYPE_BYTES[self.tensor.dtype])  # as gm_footprint counts packed elements
        return self.offset + int((sum((n - 1) * s for n, s in zip(self.shape, self.stride)) + 1) * es)


@dataclass(eq=False, slots=True)
class RawOperand:
    """A raw intrinsic's region with its values: `count` bursts of `length` bytes, `stride` apart."""

    region: ir.RawRegion
    base: int
    count: int
    length: int
    stride: int
    access: str
    text: str

    @property
    def space(self) -> str:
        return "GM:" + self.region.param if self.region.space == "GM" else self.region.space


@dataclass(eq=False, slots=True)
class Access:
    footprint: Footprint
    write: bool
    what: str  # the operand as written, for reports
    # Done before the pipe_barrier the instruction's own implementation issues part way through
    # (`Step.barrier_inside`); the other accesses come after it.
    early: bool = False


def mark_barrier_inside(op: str, arch: str, tiles: list[TileOperand], accesses: list[Access],
                        hidden: Footprint | None) -> tuple[list[Access], bool]:
    """The accesses of one instance of `op` ordered around the pipe_barrier its own implementation
    issues (`instructions.vector_barrier_inside`, `instructions.drains_before`), and whether it
    issues one. `tiles`: one operand per tile argument, in order; `hidden`: the hidden UB scratch
    when the op writes it. The one model of these barriers: `check` (emulator.pipes) and the sync
    planner (transform.sync_check) both read the `early` marks and the read-back of the scratch
    added here.
    - A drain before the work (a2a3's TSTORE_FP): no access before its barrier. (`check` issues
      it as a barrier step of its own before the instruction, where the timing counts it too.)
    - A drained row reduction: every access before its barrier.
    - A row broadcast of a column vector: the read of the column and the write of the scratch
      before it; the rest after it, with the computation's read of the hidden scratch (the tmp
      tile of the four-tile form is read and written already), so the next broadcast's write
      there is not ordered by the barrier of either."""
    inside = vector_barrier_inside(op, arch, [t.decl.blayout for t in tiles], [t.decl.dtype for t in tiles],
                                   [(t.decl.cols * t.decl.elem_bytes,
                                     t.valid[1] * t.decl.elem_bytes if t.valid_known else None) for t in tiles])
    if inside is None:
        return accesses, drains_before(op, arch) is not None
    if inside == -1:
        return [replace(a, early=True) for a in accesses], True
    vector = tiles[inside].text
    scratch = tiles[3].text if len(tiles) == 4 else None
    early = [replace(a, early=True) if (a.what == vector and not a.write) or
             (a.write and (a.what == scratch or (hidden is not None and a.footprint is hidden))) else a
             for a in accesses]
    return early + ([Access(hidden, False, "the hidden UB scratch")] if hidden is not None else []), True


# Bytes of a GM argument a raw region whose extent is not known is counted to reach.
GM_REACH = 1 << 40

NO_TEMPLATE: Mapping[str, str] = MappingProxyType({})  # the template of syncs (shared, read-only)


@dataclass(eq=False, slots=True)
class Step:
    """One issued instruction or sync."""

    index: int
    kind: str  # "op", "set", "wait", "barrier"; "xset", "xwait" for flags between the cores of a cluster
    pipe: str  # the queue it goes to; "ALL" for pipe_barrier(PIPE_ALL)
    stmt: ir.Instr | ir.Sync | ir.CrossSync
    seq: int  # scalar statements issued up to and including this one
    operands: tuple = ()  # per C++ argument: TileOperand, GmOperand or an evaluated scalar
    accesses: tuple[Access, ...] = ()
    template: Mapping[str, str] = field(default_factory=lambda: NO_TEMPLATE)
    src: str | None = None  # set/wait: the flag's pipes and event id
    dst: str | None = None
    event: int | None = None
    iters: tuple[tuple[int, int], ...] = ()  # (id of each enclosing For, iteration number), outermost first
    # In a cluster's trace: the core that issues it ("cube", "vec0", "vec1"); "" for one core.
    core: str = ""
    # An op whose implementation drains its own pipe after its `early` accesses (a2a3 row
    # reductions and row broadcasts: instructions.vector_barrier_inside).
    barrier_inside: bool = False

    @property
    def name(self) -> str:
        if self.kind == "op":
            return self.stmt.op
        if self.kind == "barrier":
            return f"pipe_barrier(PIPE_{self.pipe})"
        if self.kind in ("xset", "xwait") and self.stmt.channel == "syncall":
            return f"SYNCALL's cluster {self.kind[1:]} (PIPE_{self.pipe}, {self.event})"
        if self.kind in ("xset", "xwait"):
            if getattr(self.stmt, "ffts", False):  # the cube core's ids 16..31 are the second vector core's
                sem = self.event % 16
                return f"ffts_cross_core_sync(PIPE_{self.pipe}, {sem})" if self.kind == "xset" else f"wait_flag_dev({sem})"
            return f"{self.kind[1:]}_intra_block(PIPE_{self.pipe}, {self.event})"
        if is_unit_flag_event(self.event):
            return f"L0C unit flag {self.kind} ({self.src}->{self.dst}, L0C byte {region_of(self.event):#x})"
        return f"{self.kind}_flag({self.src}->{self.dst}, {self.event})"

    @property
    def lane(self) -> str:
        """The queue it goes to, named with its core in a cluster's trace ("vec1.MTE3")."""
        return f"{self.core}.{self.pipe}" if self.core else self.pipe

    @property
    def loc(self) -> ir.SourceRange:
        return self.stmt.loc

    @property
    def via(self) -> tuple[ir.SourceRange, ...]:
        return self.stmt.via

    @property
    def flag(self) -> tuple[str, str | None, str | None, int | None]:
        return (self.core, self.src, self.dst, self.event)


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
    cores: tuple[str, ...] = ()  # a cluster's trace: its cores, whose steps carry their core's name
    core_statements: dict[str, int] = field(default_factory=dict)  # a cluster's trace: statements per core
    warnings: list[Diagnostic] = field(default_factory=list)  # where the run counted conservatively

    @property
    def mode(self) -> str:
        return self.kernel.mode


def _state(env: dict, skip: str) -> dict:
    """The values a loop iteration may change (the executor's variables are scalars), for
    comparing two iterations."""
    return {k: v for k, v in env.items() if k != skip}


def located(message: str, stmt, notes: tuple[Diagnostic, ...] = ()) -> PtoError:
    via = tuple(Diagnostic("note", "inlined from here", to_location(v)) for v in reversed(getattr(stmt, "via", ())))
    return PtoError(message, stmt.loc, notes + via)


def check_runtime_values(kernel: ir.Kernel, values: Mapping[str, Number]) -> None:
    """Every runtime value that steers control flow or addresses must be given; one that only
    feeds data operands may be missing (the trace does not depend on it)."""
    steer = steering_values(kernel)
    if any(k.startswith("if ") for k in values):  # conditions decided by the caller (check)
        steer -= branch_only_values(kernel)[0]
    missing = [n for n in kernel.runtime_values if n not in values and n in steer]
    if missing:
        hints = {"block_idx": "--block-idx N", "block_num": "--block-num N"}
        how = ", ".join(hints.get(n, f"--set {n}=VALUE") for n in missing)
        raise PtoError(f"the kernel needs runtime value(s) {', '.join(missing)} to run; give them with {how}",
                       to_location(ir.SourceRange(kernel.file, 1, 1, 1, 1, 0, 0)))


Placement = Callable[[ir.TileDecl, int], int]  # (tile, slot) -> byte address in its buffer


# Instruction instances with the same evaluated operands share their operand and footprint objects;
# each instruction remembers at most this many distinct operand sets.
_MEMO_PER_INSTR = 256


class InstanceLimit(PtoError):
    """The run would execute more instances than its limit (see :func:`unroll`)."""


class Machine:
    """Walks the IR once with concrete values, producing the trace."""

    def __init__(self, kernel: ir.Kernel, arch: ArchProfile, values: Mapping[str, Number],
                 placement: Placement | None = None, markers: bool = False, require_semantics: bool = True,
                 max_instances: int | None = DEFAULT_MAX_INSTANCES,
                 placement_findings: list[Diagnostic] | None = None, cross_core: bool = False):
        check_runtime_values(kernel, values)
        # Flags between the cores of a cluster are issued only when the cluster is analysed as one.
        self.cross_core = cross_core
        # With a list: a manual tile placed past its buffer's end or misaligned is a finding
        # appended there; the buffer is modelled as long as the bytes the kernel reaches.
        self.placement_findings = placement_findings
        self.kernel = kernel
        self.arch = arch
        self.manual = kernel.mode == "manual"
        # a2a3 matmuls and L0C stores with a phase synchronize through L0C unit flags (manual kernels;
        # an AUTO kernel's syncs are planned without them).
        self.unit_flags = UnitFlags() if self.manual and arch.name == "a2a3" else None
        self.placement = placement
        self.markers = markers
        self.require_semantics = require_semantics
        self.implemented: frozenset[str] = frozenset()
        if require_semantics:  # the emulator's semantics (numpy) are loaded only when a run needs them
            from ptorewrite.emulator.semantics import implemented

            self.implemented = implemented()
        self.iters: list[tuple[int, int]] = []
        self.iters_now: tuple[tuple[int, int], ...] = ()  # tuple(self.iters), shared by the steps issued
        self.loops: list[tuple[ir.For, int]] = []  # the loops being run, with their trip counts
        self.items: list = []
        self.env: dict[str, Number] = dict(values)
        self.unknown_data = set(kernel.runtime_values) - set(values)  # check_runtime_values: data only
        self.values = dict(values)
        self.steps: list[Step] = []
        self.seq = 0
        self.executed = 0  # instances so far: issued steps and loop iterations
        self.max_instances = max_instances
        self.assigned = _assigned(kernel)
        # Loops whose bound an assignment can move while they run: no trip count on entry.
        self.moving_bounds = {id(s) for s in ir.walk(kernel.body)
                              if isinstance(s, ir.For) and (not s.counted or s.stop.free_vars() & self.assigned)}
        self.places: dict[tuple[int, int], Place] = {}  # (id(decl), slot) -> place
        self.private_top: dict[str, int] = {}  # AUTO: next free byte per virtual buffer
        self.buffer_size = {name: b.capacity for name, b in arch.buffers.items()}
        self.gm_extent: dict[str, int] = {}
        self.gm_dtype: dict[str, str] = {}
        self._footprints: dict[tuple, Footprint | None] = {}
        self._compiled: dict[int, tuple[Expr, Callable]] = {}
        self._memo: dict[int, dict] = {}  # id(Instr) -> evaluated operands -> (operands, accesses, template)
        self._scratch = None
        self._summaries: dict[int, tuple[ir.Instr, ir.Instr]] = {}  # see summarize_reads
        self.warnings: list[Diagnostic] = []
        # While loops whose iteration changed nothing: the iteration it first happened in (see
        # _repeats_once), and the loops already warned about.
        self._repeating: dict[int, int | None] = {}
        self._repeat_warned: set[int] = set()
        self._warned: set = set()
        if (self.manual or placement is not None) and arch.ub_scratch is not None:
            self._scratch = single("UB", *arch.ub_scratch)

    # ------------------------------------------------------------------ evaluation

    def eval(self, e: Expr, stmt) -> Number:
        hit = self._compiled.get(id(e))
        fn = hit[1] if hit is not None else self._compile(e)
        try:
            return fn(self.env)
        except KeyError as u:  # an unbound name (expr.UnboundValue is a KeyError too)
            name = u.args[0]
            raise located(f"'{name}' has no value here; give it with --set {name}=VALUE", stmt) from None
        except (ZeroDivisionError, TypeError) as x:
            raise located(f"cannot evaluate {e}: {x}", stmt) from None

    def _compile(self, e: Expr) -> Callable:
        fn = compile_expr(e)
        self._compiled[id(e)] = (e, fn)  # the entry keeps e alive, so its id is not reused
        return fn

    def try_eval(self, e: Expr, env: Mapping[str, Number]) -> Number | None:
        hit = self._compiled.get(id(e))
        fn = hit[1] if hit is not None else self._compile(e)
        try:
            return fn(env)
        except (KeyError, ZeroDivisionError, TypeError):
            return None

    def run(self) -> Trace:
        if self.max_instances is not None:
            self.check_estimate()
        self.block(self.kernel.body)
        if self.unit_flags is not None:
            last = self.steps[-1].stmt if self.steps else None
            if last is not None:
                self.issue_unit_flags(self.unit_flags.finish(), last)
        return Trace(self.kernel, self.arch, self.steps, self.seq, self.buffer_size, self.gm_extent,
                     self.gm_dtype, self.values, self.items, warnings=self.warnings)

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
        elif isinstance(s, ir.CrossSync):
            # The cluster's flags order an AUTO kernel's cores too (its FIFOs and flag objects).
            if self.cross_core:
                self.seq += 1
                self.cross_sync(s)
        elif isinstance(s, ir.For):
            self.loop(s)
        elif isinstance(s, ir.If):
            if (key := self.decided_key(s)) is not None:
                if self.values[key]:
                    self.stmt(s.then)
                elif s.other is not None:
                    self.stmt(s.other)
                return
            if self.unknown_data and s.cond.free_vars() & self.unknown_data and \
                    (data := ir.data_branch_vars(s)) is not None:
                # Decided by a data-only value not given: the branches only assign, so what they
                # assign becomes data-only too (see scalars.steering_values).
                for var in data:
                    self.env.pop(var, None)
                    self.unknown_data.add(var)
                return
            if self.eval(s.cond, s):
                self.stmt(s.then)
            elif s.other is not None:
                self.stmt(s.other)
        elif isinstance(s, ir.Block):
            self.block(s)
        elif isinstance(s, ir.Assign):
            self.seq += 1
            if self.unknown_data and s.value.free_vars() & self.unknown_data:
                # Computed from a data-only value not given: a data-only local (whatever steers
                # makes its inputs steer, and those are required), which only scalar operands read.
                self.env.pop(s.var, None)
                self.unknown_data.add(s.var)
            else:
                self.env[s.var] = self.eval(s.value, s)
                self.unknown_data.discard(s.var)
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
        if self.unknown_data and self._unknown(s.control_exprs()) and (reads := ir.read_only_loop(s)) is not None:
            self.summarize_reads(s, reads)
            return
        if not s.counted:
            self.general_loop(s)
            return
        v = self.eval(s.start, s)
        step = self.eval(s.step, s)
        k = 0
        if step == 0:
            raise located("loop step is 0", s)
        trips = None
        if self.max_instances is not None and id(s) not in self.moving_bounds:
            # Each iteration is an instance: a loop that cannot fit stops here, not after the limit.
            trips = _trips(v, self.eval(s.stop, s), step, s.inclusive)
            if self.executed + trips > self.max_instances:
                self.loops.append((s, trips))
                raise self.limit_error(self.executed + trips)
        self.loops.append((s, trips))
        while True:
            stop = self.eval(s.stop, s)
            if step > 0:
                go = v <= stop if s.inclusive else v < stop
            else:
                go = v >= stop if s.inclusive else v > stop
            if not go:
                break
            self.count()
            self.env[s.var] = v
            self.iters.append((id(s), k))
            self.iters_now = tuple(self.iters)
            self.stmt(s.body)
            self.iters.pop()
            self.iters_now = tuple(self.iters)
            v += step
            k += 1
        self.loops.pop()
        self.leave_loop(s, v)

    def decided_key(self, s: ir.If) -> str | None:
        """Outside every loop, an if whose condition reads values not given and whose outcome the
        caller chose (scalars.branch_only_values): the key of that outcome in the values."""
        if self.unknown_data and not self.iters and s.cond.free_vars() & self.unknown_data:
            key = decided_condition_key(s.cond)
            if key in self.values:
                return key
        return None

    def _unknown(self, exprs) -> bool:
        return any(e is not None and e.free_vars() & self.unknown_data for e in exprs)

    def summarize_reads(self, s: ir.For, reads: list[ir.Instr]) -> None:
        """A loop that only reads buffer elements with the scalar unit and assigns scalars, whose
        trip count is a data-only value not given: one read per element read in its body, of
        every byte from the first iteration's element to the end of the buffer, stands for all
        its iterations (they issue nothing else, so nothing else can come between them), and what
        it assigns becomes data-only."""
        start = self.try_eval(s.start, self.env)
        step = self.try_eval(s.step, self.env) if s.counted else None
        first, second = dict(self.env), dict(self.env)
        first[s.var] = start
        second[s.var] = start + step if isinstance(start, int) and isinstance(step, int) else None
        for r in reads:
            region: ir.RawRegion = r.args[0].value
            # From the first iteration's element when later iterations read higher addresses.
            lo, nxt = self.try_eval(region.base, first), self.try_eval(region.base, second)
            monotone = _affine_in(region.base, s.var) and isinstance(lo, int) and isinstance(nxt, int)
            lo = lo if monotone and 0 <= lo <= nxt else 0
            end = GM_REACH if region.space == "GM" else self.buffer_size[region.space]
            size = max(end - lo, 1)
            whole = ir.RawRegion(region.space, region.param, ex.Const(lo), ex.Const(1), ex.Const(size),
                                 ex.Const(size))
            summary = self._summaries.get(id(r))
            if summary is None:
                summary = self._summaries[id(r)] = (r, ir.Instr(r.op, r.pipe, (ir.Arg("raw", whole, "r", r.args[0].text),),
                                                                 (), r.loc, r.via, uid=r.uid))
                what = f"GM argument '{region.param}'" if region.space == "GM" else region.space
                d = located(f"the trip count of this loop is not given; its reads through '{r.args[0].text}' are "
                            f"counted as reading every byte from {lo:#x} to the end of {what}", s).diagnostics[0]
                self.warnings.append(Diagnostic("warning", d.message, d.loc, d.notes))
            self.seq += 1
            self.instr(summary[1])
        for var in ir.assigned_vars(s.body) | ({s.var} if s.keeps_var else set()):
            self.env.pop(var, None)
            self.unknown_data.add(var)

    def general_loop(self, s: ir.For) -> None:
        """`for (v = start; cond; v = update)`: the condition and the update see the body's
        assignments, as in C."""
        self.env[s.var] = self.eval(s.start, s)
        k = 0
        self.loops.append((s, None))
        while self.eval(s.cond, s):
            self.count()
            self.iters.append((id(s), k))
            self.iters_now = tuple(self.iters)
            before = _state(self.env, s.var) if s.kind == "while" else None
            self.stmt(s.body)
            self.iters.pop()
            self.iters_now = tuple(self.iters)
            if before is not None and before == _state(self.env, s.var) and self._repeats_once(s, k):
                break
            old = self.env[s.var]
            self.env[s.var] = self.eval(s.update, s)
            if self.env[s.var] == old:
                raise located(f"the loop variable keeps its value {old!r}: the loop would not terminate", s)
            k += 1
        self.loops.pop()
        self.leave_loop(s, self.env[s.var])

    def _repeats_once(self, s: ir.For, k: int) -> bool:
        """A while loop's iteration left every value as it found it: with the values given, every
        later iteration repeats it (same statements, same places, same event ids) and the loop
        ends only when something the model does not see changes (a poll of GM that another core
        or rank writes). Two such iterations stand for any number of them: a dependence or a
        flag reaches at most one iteration back, as for a loop of period 1 on the bounded trace
        (docs/design.md, "Loops"). True when the loop stops here; the first time, one more."""
        seen = self._repeating
        if seen.get(id(s)) is None:
            seen[id(s)] = k
            return False
        if id(s) not in self._repeat_warned:
            self._repeat_warned.add(id(s))
            self.warnings.append(Diagnostic(
                "warning", "this while loop's iterations change nothing the model sees with the values given (its "
                "condition waits for memory another core or rank writes): two iterations are checked, standing for "
                "any number of them, and the loop is left after them", s.loc))
        seen[id(s)] = None
        return True

    def leave_loop(self, s: ir.For, last) -> None:
        if s.keeps_var:
            self.env[s.var] = last  # declared before the loop: C leaves it at the value that ended the loop
        else:
            self.env.pop(s.var, None)

    # ------------------------------------------------------------------ the instance limit

    def count(self) -> None:
        self.executed += 1
        if self.max_instances is not None and self.executed > self.max_instances:
            raise self.limit_error(None)

    def check_estimate(self) -> None:
        """Refuse before running when the instances that must run already exceed the limit."""
        env = {k: v for k, v in self.values.items() if k not in self.assigned}
        need = self.least_work(self.kernel.body, env)
        if need > self.max_instances:
            raise self.limit_error(need, static=True)

    def least_work(self, s: ir.Stmt, env: dict) -> int:
        """Instances a statement executes at least (exactly, when every trip count and condition it
        meets is known from `env`); unknown trip counts count as 0."""
        if isinstance(s, ir.Instr):
            return 1
        if isinstance(s, (ir.Sync, ir.CrossSync)):
            return 1 if self.manual else 0
        if isinstance(s, ir.Block):
            return sum(self.least_work(x, env) for x in s.stmts)
        if isinstance(s, ir.If):
            c = self.try_eval(s.cond, env)
            then = self.least_work(s.then, env)
            other = self.least_work(s.other, env) if s.other is not None else 0
            return min(then, other) if c is None else (then if c else other)
        if isinstance(s, ir.For):
            if not s.counted:
                return 0  # a general loop's trip count is known only by running it
            start, stop, step = (self.try_eval(x, env) for x in (s.start, s.stop, s.step))
            if start is None or stop is None or not step:
                return 0
            trips = _trips(start, stop, step, s.inclusive)
            if not trips:
                return 0
            inner = {k: v for k, v in env.items() if k != s.var}
            return trips * (1 + self.least_work(s.body, inner))
        return 0

    def limit_error(self, need: int | None, static: bool = False) -> InstanceLimit:
        """The error for a run over the limit: `need` instances at least (None: the count reached
        it); `static`: found before running. Notes name the loops (heaviest or running) and sizes."""
        limit = self.max_instances
        what = "instances (instructions, syncs and loop iterations)"
        if need is None:
            head = f"this run reached the limit of {limit:,} executed {what} and was stopped"
        else:
            head = f"this run would execute at least {need:,} {what}, more than the limit of {limit:,}"
        loops = self.static_loops() if static else list(self.loops)
        notes = []
        for s, trips in loops[:12]:
            runs = "a number of times that changes as the kernel runs" if trips is None else f"{trips:,} times"
            notes.append(Diagnostic("note", f"loop over '{s.cpp_var or s.var.split('#')[0]}' runs {runs}",
                                    to_location(s.loc)))
        msg = (f"{head}; {self.smaller_configuration()}, or raise the limit (--max-instances N of check, "
               "simulate and verify)")
        where = loops[0][0].loc if loops else _file_start(self.kernel)
        return InstanceLimit(msg, where, tuple(notes))

    def static_loops(self) -> list[tuple[ir.For, int | None]]:
        """The loops of the nest that executes the most (outermost first), then the kernel's other
        loops in program order, each with its trip count from the given values (None: it depends
        on enclosing loops or assigned scalars)."""
        env = {k: v for k, v in self.values.items() if k not in self.assigned}
        loops = []  # (loop, trips, iterations of its body in the whole run, index of the enclosing loop)

        def walk(s: ir.Stmt, env: dict, weight: int, parent: int | None) -> None:
            if isinstance(s, ir.Block):
                for x in s.stmts:
                    walk(x, env, weight, parent)
            elif isinstance(s, ir.If):
                walk(s.then, env, weight, parent)
                if s.other is not None:
                    walk(s.other, env, weight, parent)
            elif isinstance(s, ir.For):
                trips = None  # general loops: known only by running them
                if s.counted:
                    start, stop, step = (self.try_eval(x, env) for x in (s.start, s.stop, s.step))
                    trips = _trips(start, stop, step, s.inclusive) if None not in (start, stop) and step else None
                loops.append((s, trips, weight * (trips or 1), parent))
                walk(s.body, {k: v for k, v in env.items() if k != s.var}, weight * (trips or 1), len(loops) - 1)

        walk(self.kernel.body, env, 1, None)
        if not loops:
            return []
        k = max(range(len(loops)), key=lambda i: loops[i][2])
        nest = []
        while k is not None:
            nest.append(k)
            k = loops[k][3]
        order = nest[::-1] + [i for i in range(len(loops)) if i not in nest]
        return [(loops[i][0], loops[i][1]) for i in order]

    def smaller_configuration(self) -> str:
        """-D / --set values that make the run fit under the limit, as far as they can be told."""
        hints = []
        runtime = sorted({n for s in ir.walk(self.kernel.body) if isinstance(s, ir.For)
                          for n in _free_vars(s) if n in self.values and isinstance(self.values[n], int)})
        if runtime:
            env = {k: v for k, v in self.values.items() if k not in self.assigned}
            for shift in range(1, 64):
                trial = dict(env)
                for n in runtime:
                    trial[n] = max(1, self.values[n] >> shift) if self.values[n] > 0 else self.values[n]
                if self.least_work(self.kernel.body, trial) <= self.max_instances // 2:
                    opts = {"block_idx": "--block-idx ", "block_num": "--block-num "}
                    hints.append("try " + " ".join(f"{opts.get(n, '--set ' + n + '=')}{trial[n]}" for n in runtime))
                    break
        defaults = overridable_macros(self.kernel.source)
        if defaults:
            hints.append("give smaller compile-time sizes with -D (this file's defaults: "
                         + " ".join(f"-D{n}={v}" for n, v in defaults) + ")")
        if not hints:
            hints.append("make the kernel's trip counts smaller")
        return "; ".join(hints)

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
            message = (f"TASSIGN places '{s.ref}' ({decl.nbytes} B) at {addr!r}, outside {buf.name} "
                       f"({buf.capacity} B)")
            if self.placement_findings is None or not isinstance(addr, int) or addr < 0:
                raise located(message, s)
            self.finding(f"TASSIGN places '{s.ref}' ({decl.nbytes} B) at {addr:#x}, ending at "
                         f"{addr + decl.nbytes:#x}, past the end of {buf.name} ({buf.capacity} B)", s)
            self.buffer_size[buf.name] = max(self.buffer_size[buf.name], addr + decl.nbytes)
        if addr % buf.alignment and self.placement_findings is not None:
            self.finding(f"TASSIGN places '{s.ref}' at {addr:#x}, which is not a multiple of {buf.alignment}: "
                         f"{decl.tile_type} tiles ({buf.name}) need {buf.alignment}-byte alignment", s)
        elif addr % buf.alignment:
            raise located(f"TASSIGN places '{s.ref}' at {addr:#x}, which is not a multiple of {buf.alignment}: "
                          f"{decl.tile_type} tiles ({buf.name}) need {buf.alignment}-byte alignment", s)
        self.places[(id(decl), slot)] = Place(buf.name, addr)

    def finding(self, message: str, stmt) -> None:
        """A placement problem `check` reports and checks past (see `placement_findings`)."""
        d = located(message, stmt).diagnostics[0]
        if d not in self.placement_findings:
            self.placement_findings.append(d)

    def beyond(self, message: str, buffer: str, hi: int, stmt) -> None:
        """An access reaching byte `hi` past `buffer`'s end: a finding, or a refusal."""
        if self.placement_findings is None:
            raise located(message, stmt)
        self.finding(message, stmt)
        self.buffer_size[buffer] = max(self.buffer_size[buffer], hi)

    def alias(self, s: ir.AliasDef) -> None:
        base = self.place_of(s.src, s)
        off = self.eval(s.offset_bytes, s)
        if self.manual and isinstance(off, int) and off >= 0:
            # Manual mode: an address computation (`src.data() + offset`), anywhere in the buffer.
            cap = self.arch.buffers[base.buffer].capacity
            if base.address + off >= cap:
                raise located(f"{s.kind} '{s.dst}' starts at byte {off!r} of '{s.src}', at "
                              f"{base.address + off:#x}, outside {base.buffer} ({cap} B)", s)
        elif not isinstance(off, int) or off < 0 or off >= max(1, s.src.tile.nbytes):
            raise located(f"{s.kind} '{s.dst}' starts at byte {off!r} of '{s.src}', outside its "
                          f"{s.src.tile.nbytes} B", s)
        self.places[(id(s.dst.tile), self.slot_of(s.dst, s))] = Place(base.buffer, base.address + int(off))

    def place_of(self, ref: ir.TileRef, stmt) -> Place:
        return self.place_at(ref, self.slot_of(ref, stmt), stmt)

    def place_at(self, ref: ir.TileRef, slot: int, stmt) -> Place:
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

    def cross_sync(self, s: ir.CrossSync) -> None:
        sem = self.eval(s.sem, s)
        if not isinstance(sem, int) or not 0 <= sem < CROSS_CORE_SEMAPHORES:
            raise located(f"semaphore id {sem!r} is outside 0..{CROSS_CORE_SEMAPHORES - 1}", s)
        self.issue(Step(len(self.steps), "x" + s.kind, s.pipe, s, self.seq, event=sem))

    def issue(self, step: Step) -> None:
        self.count()
        self.steps.append(step)
        if self.markers:
            self.items.append(step)

    def instr(self, s: ir.Instr) -> None:
        if self.require_semantics and s.op not in self.implemented:
            raise located(f"the emulator does not implement {s.op}", s)
        # Evaluate what the operands depend on; instances that agree share the operand objects.
        inputs = []
        position = 0  # among the tile operands
        for a in s.args:
            if a.kind == "tile":
                inputs.append(self.tile_inputs(a, s, is_scratch(position, a.access)))
                position += 1
            elif a.kind == "gm":
                inputs.append(self.gm_inputs(a, s))
            elif a.kind == "raw":
                inputs.append(self.raw_inputs(a, s))
            elif self.unknown_data and a.value.free_vars() & self.unknown_data:
                inputs.append(None)  # a data-only value not given: the trace does not depend on it
            else:
                v = self.eval(a.value, s)
                inputs.append(v if type(v) is int else (type(v), repr(v), v))
        key = tuple(inputs)
        memo = self._memo.get(id(s))
        if memo is None:
            memo = self._memo[id(s)] = {}
        hit = memo.get(key)
        if hit is None:
            operands = []
            for a, x in zip(s.args, inputs):
                if a.kind == "tile":
                    slot, buffer, address, vr, vc = x
                    operands.append(TileOperand(a.value.tile, slot, Place(buffer, address), (vr, vc), a.access,
                                                a.text))
                elif a.kind == "gm":
                    operands.append(self.gm_operand(a, x))
                elif a.kind == "raw":
                    operands.append(self.raw_operand(a, x, s))
                else:
                    operands.append(x if x is None or type(x) is int else x[2])
            hit = (tuple(operands), tuple(self.accesses(s, operands)), template_dict(s.template_args))
            if len(memo) < _MEMO_PER_INSTR:
                memo[key] = hit
        operands, accesses, template = hit
        if s.op == "MGATHER" and s.args[0].kind == "tile" and s.args[0].value.tile.tile_type == "Mat" and \
                self.kernel.core in ("vec", "cube"):
            self.gather_into_l1(s, operands, accesses, template)
            return
        drained = drains_before(s.op, self.arch.name)
        if drained is not None and self.manual:  # part of the instruction: a manual kernel relies on it
            self.issue(Step(len(self.steps), "barrier", drained,
                            ir.Sync("barrier", drained, None, None, s.loc, s.via), self.seq))
        handshake = self.unit_flags is not None and s.pipe in ("M", "FIX")
        if handshake:
            l0c = [(a.write, (a.footprint.lo, a.footprint.hi)) for a in accesses if a.footprint.space == "L0C"]
            writes, reads = [r for w, r in l0c if w], [r for w, r in l0c if not w]
            self.issue_unit_flags(self.unit_flags.before(s.pipe, s.template_args, writes, reads), s)
        self.issue(Step(len(self.steps), "op", s.pipe, s, self.seq, operands, accesses, template,
                        iters=self.iters_now, barrier_inside=any(a.early for a in accesses)))
        if handshake:
            self.issue_unit_flags(self.unit_flags.after(s.pipe, s.template_args, writes, reads), s)

    def issue_unit_flags(self, flags, s) -> None:
        """The L0C unit-flag handshake around `s` (analysis.unit_flags), as flag steps at its line."""
        for kind, src, dst, event in flags:
            sync = ir.Sync(kind, src, dst, ex.Const(event), s.loc, s.via)
            self.issue(Step(len(self.steps), kind, src if kind == "set" else dst, sync, self.seq, src=src, dst=dst,
                            event=event))

    def gather_into_l1(self, s: ir.Instr, operands, accesses, template) -> None:
        """MGATHER into an L1 tile: the part this core type runs (`l1_gather_part`)."""
        part = l1_gather_part(template, self.kernel.core, self.env.get("subblock_idx"), self.arch)
        if part == "none":
            return
        if part == "whole":
            self.issue(Step(len(self.steps), "op", s.pipe, s, self.seq, operands, accesses, template,
                            iters=self.iters_now))
            return
        signal = self.cross_core
        sem = ex.Const(SIMT_GATHER_SEMAPHORE)
        if part == "simt-gather":
            # The GM accesses only (table, indices, staging area), done when the call returns.
            gm = tuple(a for a in accesses if a.footprint.space.startswith("GM:"))
            self.issue(Step(len(self.steps), "op", "S", s, self.seq, operands, gm, template, iters=self.iters_now))
            if signal:
                self.issue(Step(len(self.steps), "xset", "S", ir.CrossSync("set", "S", sem, s.loc, s.via), self.seq,
                                event=SIMT_GATHER_SEMAPHORE))
            return
        if signal:
            self.issue(Step(len(self.steps), "xwait", s.pipe, ir.CrossSync("wait", s.pipe, sem, s.loc, s.via),
                            self.seq, event=SIMT_GATHER_SEMAPHORE))
        # The copy of the staging area (the last GM operand) into the tile.
        kept = [o if i == 0 or i == len(operands) - 1 else None for i, o in enumerate(operands)]
        self.issue(Step(len(self.steps), "op", s.pipe, s, self.seq, operands, tuple(self.accesses(s, kept)),
                        template, iters=self.iters_now))

    def tile_inputs(self, a: ir.Arg, s: ir.Instr, scratch: bool = False) -> tuple:
        ref: ir.TileRef = a.value
        decl = ref.tile
        if decl.packed and self.require_semantics:
            raise located(f"packed {decl.dtype} tiles are not supported by the emulator", s)
        if decl.slayout.startswith("Conv") and self.require_semantics:
            raise located(f"ConvTile '{ref}': the emulator does not compute N-D ({decl.slayout[4:]}) tiles", s)
        if decl.compact and self.require_semantics:
            raise located(f"compact tile '{ref}': the emulator does not lay out compact-mode tiles (their valid "
                          "region stored densely)", s)
        slot = self.slot_of(ref, s)
        if scratch:  # used by its address and capacity shape; its valid shape does not matter
            vr, vc = decl.rows, decl.cols
        else:
            vr = decl.rows if decl.valid_rows is None else int(self.eval(decl.valid_rows, s))
            vc = decl.cols if decl.valid_cols is None else int(self.eval(decl.valid_cols, s))
            if decl.valid_var:  # tracked per slot where the tile is constructed (a ConvTile's elements)
                count = self.env.get(f"{decl.valid_var}#{slot}")
                vc = int(count) if isinstance(count, (int, float)) else decl.cols
        if vr < 0 or vc < 0:
            raise located(f"valid shape {vr}x{vc} of '{ref}' is negative", s)
        if vr == 0 or vc == 0:
            vr, vc = min(vr, decl.rows), min(vc, decl.cols)  # no element: nothing touched, whatever the other
        elif vr > decl.rows or vc > decl.cols:
            raise located(f"valid shape {vr}x{vc} of '{ref}' exceeds its {decl.rows}x{decl.cols} capacity", s)
        place = self.place_at(ref, slot, s)
        return slot, place.buffer, place.address, vr, vc

    def gm_inputs(self, a: ir.Arg, s: ir.Instr) -> tuple:
        g: ir.GmTensor = a.value.tensor
        unknown = g.offset_bytes.free_vars() & self.unknown_data
        if unknown:
            return self.gm_window_unplaced(a, s, g, sorted(unknown))
        hit = self._compiled.get(id(g))
        if hit is None:
            hit = self._compiled[id(g)] = (g, compile_ints((*g.shape, *g.stride, g.offset_bytes)))
        try:
            vals = hit[1](self.env)
        except Exception:  # noqa: BLE001 - evaluated again one by one below, for the located error
            vals = None
        if vals is not None:
            ns = len(g.shape)
            shape, stride, off = vals[:ns], vals[ns:-1], vals[-1]
            if min(vals) >= 0:
                return shape, stride, off
        shape = tuple(int(self.eval(x, s)) for x in g.shape)
        stride = tuple(int(self.eval(x, s)) for x in g.stride)
        off = int(self.eval(g.offset_bytes, s))
        if any(n < 0 for n in shape) or any(x < 0 for x in stride) or off < 0:
            raise located(f"GM window '{g.name}' has a negative shape, stride or offset", s)
        return shape, stride, off

    def gm_window_unplaced(self, a: ir.Arg, s: ir.Instr, g: ir.GmTensor, unknown: list[str]) -> tuple:
        """A window placed by values read from buffer elements, not given (scalars.steering_values):
        for `check`, every byte of its GM argument, with a warning; a run needs the values."""
        if self.require_semantics:
            raise located(f"GM window '{g.name}' is placed by {', '.join(unknown)}, read at run time; give "
                          f"{'it' if len(unknown) == 1 else 'them'} with --set NAME=VALUE", s)
        if (id(s), a.text) not in self._warned:
            self._warned.add((id(s), a.text))
            d = located(f"{s.op}: GM window '{a.text}' is placed by {', '.join(unknown)}, read at run time; counted "
                        f"as every byte of its GM argument '{g.param}'", s).diagnostics[0]
            self.warnings.append(Diagnostic("warning", d.message, d.loc, d.notes))
        shape = tuple(int(self.eval(x, s)) for x in g.shape)
        stride = tuple(int(self.eval(x, s)) for x in g.stride)
        return shape, stride, None

    def gm_operand(self, a: ir.Arg, inputs: tuple) -> GmOperand:
        g: ir.GmTensor = a.value.tensor
        shape, stride, off = inputs
        if off is None:  # placed at run time (gm_window_unplaced): the whole argument
            return GmOperand(g, g.param, 0, shape, stride, a.access, a.text, whole=True)
        op = GmOperand(g, g.param, off, shape, stride, a.access, a.text)
        self.gm_extent[g.param] = max(self.gm_extent.get(g.param, 0), op.extent)
        self.gm_dtype.setdefault(g.param, g.dtype)
        return op

    def raw_inputs(self, a: ir.Arg, s: ir.Instr) -> tuple[int, ...]:
        """(base, count, length, stride) of a raw region; where one depends on a data-only value
        not given: every byte the region can reach (from its base, if known, to the buffer's end;
        the rest of its GM argument), with a warning."""
        region: ir.RawRegion = a.value
        if not (self.unknown_data and any(e.free_vars() & self.unknown_data for e in region.exprs())):
            return tuple(int(self.eval(e, s)) for e in region.exprs())
        base = None if region.base.free_vars() & self.unknown_data else int(self.eval(region.base, s))
        lo = base if base is not None and base >= 0 else 0
        end = GM_REACH if region.space == "GM" else self.buffer_size[region.space]
        if (id(s), a.text) not in self._warned:
            self._warned.add((id(s), a.text))
            unknown = sorted(set().union(*(e.free_vars() for e in region.exprs())) & self.unknown_data)
            where = "its GM argument" if region.space == "GM" else region.space
            d = located(f"{s.op}: '{a.text}' depends on {', '.join(unknown)}, not given; counted as every byte "
                        f"from {lo:#x} to the end of {where}", s).diagnostics[0]
            self.warnings.append(Diagnostic("warning", d.message, d.loc, d.notes))
        size = max(end - lo, 1)
        return lo, 1, size, size

    def raw_operand(self, a: ir.Arg, values: tuple[int, ...], s: ir.Instr) -> RawOperand:
        base, count, length, stride = values
        if min(values) < 0:
            raise located(f"'{a.text}': {s.op} would touch a negative address, burst count, length or stride "
                          f"({base}, {count}, {length}, {stride})", s)
        o = RawOperand(a.value, base, count, length, stride, a.access, a.text)
        if a.value.space == "GM" and count and length and length < GM_REACH:
            end = base + (count - 1) * stride + length
            self.gm_extent[a.value.param] = max(self.gm_extent.get(a.value.param, 0), end)
            self.gm_dtype.setdefault(a.value.param, "uint8")
        return o

    # ------------------------------------------------------------------ footprints

    def accesses(self, s: ir.Instr, operands: list) -> list[Access]:
        out: list[Access] = []
        windows = self.windows(s, operands)
        tiles = [o for o in operands if isinstance(o, TileOperand)]
        tile = tiles[0] if tiles else None
        position = 0
        for i, o in enumerate(operands):
            if isinstance(o, TileOperand):
                if is_scratch(position, o.access):
                    fp = self.scratch_footprint(s, o, position, [t.valid for t in tiles])
                else:
                    fp = self.tile_footprint(o, windows.get(i), s)
                position += 1
            elif isinstance(o, GmOperand):
                clip = tile.valid if (s.op in CLIPPED_GM and tile is not None and not s.whole_gm) else None
                fp = self.gm_footprint(o, clip)
            elif isinstance(o, RawOperand):
                fp = self.raw_footprint(o, s)
            else:
                continue
            if fp is None:
                continue
            if "r" in o.access:
                out.append(Access(fp, False, o.text))
            if "w" in o.access:
                out.append(Access(fp, True, o.text))
        hidden = self._scratch is not None and uses_hidden_scratch(s.op, [t.access for t in tiles])
        if hidden:
            out.append(Access(self._scratch, True, "the hidden UB scratch"))
        out, _ = mark_barrier_inside(s.op, self.arch.name, tiles, out, self._scratch if hidden else None)
        return out

    def windows(self, s: ir.Instr, operands: list) -> dict[int, tuple[int, int, int, int]]:
        if s.op not in WINDOWED:
            return {}
        tiles = [i for i, o in enumerate(operands) if isinstance(o, TileOperand) and o.decl.tile_type != "Scaling"]
        nums = [v for v in operands if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if len(tiles) != 2:  # TEXTRACT(dst0, dst1, src, ...): the source is read whole
            return {}
        big, shaper = (tiles[k] for k in WINDOWED[s.op])
        r0, c0 = (list(map(int, window_position(nums))) + [0, 0])[:2]
        vr, vc = operands[big].valid
        h, w = operands[shaper].valid
        return {big: (r0, c0, max(0, min(h, vr - r0)), max(0, min(w, vc - c0)))}

    def tile_footprint(self, o: TileOperand, window, s) -> Footprint | None:
        if o.decl.packed:  # half-byte elements: the whole tile, a byte per column (see TileDecl.storage_bytes)
            fp = single(o.place.buffer, o.place.address, o.place.address + o.decl.storage_bytes)
            if fp.hi > self.buffer_size[o.place.buffer]:
                self.beyond(f"'{o.text}' reaches byte {fp.hi:#x} of {o.place.buffer}, beyond its "
                            f"{self.buffer_size[o.place.buffer]} B", o.place.buffer, fp.hi, s)
            return fp
        if o.decl.compact and o.decl.slayout != "NoneBox":
            # Only the valid region is stored, densely from the tile's address: all of it.
            fp = single(o.place.buffer, o.place.address, o.place.address + o.decl.compact_bytes(*o.valid))
            if fp.hi > self.buffer_size[o.place.buffer]:
                self.beyond(f"'{o.text}' reaches byte {fp.hi:#x} of {o.place.buffer}, beyond its "
                            f"{self.buffer_size[o.place.buffer]} B", o.place.buffer, fp.hi, s)
            return fp
        if o.decl.slayout != "NoneBox" and not o.decl.valid_var:
            exact = self.boxed_window(o, window) if window is not None else None
            if exact is not None:
                return exact
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
                self.beyond(f"'{o.text}' reaches byte {fp.hi:#x} of {o.place.buffer}, beyond its {cap} B",
                            o.place.buffer, fp.hi, s)
            self._footprints[key] = fp
        return self._footprints[key]

    def boxed_window(self, o: TileOperand, window) -> Footprint | None:
        """The bytes of a window of whole boxes in a tile of 512-byte boxes, as pto-isa lays them
        out: NZ (`ColMajor` of `SLayout::RowMajor` boxes of 16 rows x 32 bytes) stores each strip
        of box columns with all the tile's rows, a row of the strip 32 bytes; ZN (`RowMajor` of
        `SLayout::ColMajor` boxes of 32 bytes x 16 columns) stores each strip of box rows with all
        the tile's columns, a column of the strip 32 bytes. A window of whole boxes is then one
        run per strip it spans (a TINSERT of one vector core's rows or columns). None for any other
        layout or window (the caller counts the whole tile)."""
        d = o.decl
        es = int(d.elem_bytes) if d.elem_bytes in (1, 2, 4) else 0
        if not es or d.fractal != 512 or d.compact:
            return None
        r0, c0, nr, nc = window
        if d.blayout == "ColMajor" and d.slayout == "RowMajor":
            br, bc = 16, 32 // es
        elif d.blayout == "RowMajor" and d.slayout == "ColMajor":
            br, bc = 32 // es, 16
        else:
            return None
        if d.rows % br or d.cols % bc or r0 % br or nr % br or c0 % bc or nc % bc or nr <= 0 or nc <= 0 \
                or r0 + nr > d.rows or c0 + nc > d.cols:
            return None
        if d.blayout == "ColMajor":  # strips of box columns, each all rows deep
            start, dims = (c0 // bc) * d.rows * bc + r0 * bc, [(nc // bc, d.rows * bc), (nr * bc, 1)]
        else:  # strips of box rows, each all columns wide
            start, dims = (r0 // br) * br * d.cols + c0 * br, [(nr // br, br * d.cols), (nc * br, 1)]
        fp = strided(o.place.buffer, o.place.address + start * es, es, dims)
        if fp is not None and fp.hi > self.buffer_size[o.place.buffer]:
            return None
        return fp

    def scratch_footprint(self, s: ir.Instr, o: TileOperand, position: int,
                          valids: list[tuple[int, int]]) -> Footprint:
        """The bytes a scratch tile gives the instruction: from its address, its whole capacity or
        the instruction's known reach past it (`instructions.scratch_reach`)."""
        d = o.decl
        reach = scratch_reach(s.op, self.arch.name, position, valids, d.rows, d.cols, d.elem_bytes)
        fp = single(o.place.buffer, o.place.address, o.place.address + reach)
        cap = self.buffer_size[o.place.buffer]
        if fp.hi > cap:
            self.beyond(f"{s.op} uses {reach} B of its scratch tile '{o.text}' from byte {o.place.address:#x}, "
                        f"reaching byte {fp.hi:#x} of {o.place.buffer}, beyond its {cap} B", o.place.buffer, fp.hi, s)
        return fp

    def raw_footprint(self, o: RawOperand, s: ir.Instr) -> Footprint | None:
        """Every burst of a raw intrinsic's region (an on-chip buffer's bytes past its end are a
        finding of `check`, like a misplaced tile)."""
        key = (o.space, o.base, o.count, o.length, o.stride)
        if key not in self._footprints:
            dims = [(o.count, o.stride), (o.length, 1)] if o.stride >= o.length or o.count <= 1 else \
                [(1, 1), ((o.count - 1) * o.stride + o.length, 1)]  # overlapping bursts: their hull
            fp = strided(o.space, o.base, 1, dims) if o.count and o.length else None
            if fp is not None and o.region.space != "GM":
                cap = self.buffer_size[o.space]
                if fp.hi > cap:
                    self.beyond(f"{s.op}'s '{o.text}' reaches byte {fp.hi:#x} of {o.space}, beyond its {cap} B",
                                o.space, fp.hi, s)
            self._footprints[key] = fp
        return self._footprints[key]

    def gm_footprint(self, o: GmOperand, clip) -> Footprint | None:
        if o.whole:
            return single("GM:" + o.param, 0, GM_REACH)
        es = max(1, int(ir.DTYPE_BYTES[o.tensor.dtype]))  # a packed 4-bit element counts as its storage byte
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


# ---------------------------------------------------------------------------------- helpers


def _affine_in(e: Expr, var: str) -> bool:
    """`e` is a + b * var with a, b free of var (so it moves one way as var steps)."""
    if var not in e.free_vars():
        return True
    if isinstance(e, ex.Var):
        return True
    if isinstance(e, ex.BinOp) and e.op in ("+", "-"):
        return _affine_in(e.lhs, var) and _affine_in(e.rhs, var)
    if isinstance(e, ex.BinOp) and e.op == "*":
        return (var not in e.lhs.free_vars() and _affine_in(e.rhs, var)) or \
            (var not in e.rhs.free_vars() and _affine_in(e.lhs, var))
    return False

_PY_OPS = frozenset({"+", "-", "*", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==", "!="})


def compile_expr(e: Expr) -> Callable[[Mapping[str, Number]], Number]:
    """`e.eval` as one Python function of the environment: the same operations in the same order
    (C division and remainder, eager && and ||), without a call per tree node. An unbound name
    raises KeyError; an expression Python cannot compile (too deep) falls back to `e.eval`."""
    fn = _compile([e], "{}")
    return e.eval if fn is None else fn


def compile_ints(exprs: tuple[Expr, ...]) -> Callable[[Mapping[str, Number]], tuple[int, ...]]:
    """One function computing `tuple(int(e.eval(env)) for e in exprs)`."""
    fn = _compile(list(exprs), "(" + "".join("int({}), " for _ in exprs) + ")")
    return fn if fn is not None else (lambda env: tuple(int(e.eval(env)) for e in exprs))


def _compile(exprs: list[Expr], shape: str) -> Callable | None:
    consts: list = []

    def emit(x: Expr) -> str:
        if isinstance(x, ex.Const):
            consts.append(x.value)
            return f"k[{len(consts) - 1}]"
        if isinstance(x, ex.Var):
            return f"env[{x.name!r}]"
        if isinstance(x, ex.BinOp):
            a, b = emit(x.lhs), emit(x.rhs)
            if x.op in _PY_OPS:
                return f"({a} {x.op} {b})"
            if x.op == "/":
                return f"div({a}, {b})"
            if x.op == "%":
                return f"mod({a}, {b})"
            if x.op in ("&&", "||"):
                return f"(bool({a}) {'&' if x.op == '&&' else '|'} bool({b}))"
        if isinstance(x, ex.UnOp) and x.op in ("-", "!", "~"):
            return f"({'not ' if x.op == '!' else x.op}{emit(x.operand)})"
        if isinstance(x, ex.Select):
            return f"({emit(x.then)} if {emit(x.cond)} else {emit(x.other)})"
        raise TypeError(type(x).__name__)

    try:
        body = shape.format(*(emit(e) for e in exprs))
        return eval(f"lambda env: {body}", {"k": tuple(consts), "div": ex.c_div, "mod": ex.c_mod})
    except (TypeError, RecursionError, MemoryError, SyntaxError):
        return None


def _trips(start, stop, step, inclusive: bool) -> int:
    """How many times `for (v = start; v < stop (or <=, >, >=); v += step)` runs (step != 0)."""
    span, step = (stop - start, step) if step > 0 else (start - stop, -step)
    if inclusive:
        return int(span // step) + 1 if span >= 0 else 0
    return int(-(-span // step)) if span > 0 else 0


def _assigned(kernel: ir.Kernel) -> frozenset[str]:
    """Scalars the kernel assigns (their values change while it runs)."""
    return frozenset(s.var for s in ir.walk(kernel.body) if isinstance(s, ir.Assign))


def _free_vars(loop: ir.For) -> frozenset[str]:
    return loop.start.free_vars() | loop.stop.free_vars() | loop.step.free_vars()


_OVERRIDABLE = re.compile(r"^[ \t]*#[ \t]*ifndef[ \t]+(\w+)[ \t]*\n"
                          r"[ \t]*#[ \t]*define[ \t]+\1[ \t]+([-+]?\w+)[ \t]*$", re.MULTILINE)


def overridable_macros(source: bytes) -> list[tuple[str, str]]:
    """`#ifndef NAME` / `#define NAME value` pairs of a kernel file: the sizes -D can set."""
    text = source.decode("utf-8", "replace")
    return [(m.group(1), m.group(2)) for m in _OVERRIDABLE.finditer(text)]


def _file_start(kernel: ir.Kernel) -> ir.SourceRange:
    return ir.SourceRange(kernel.file, 1, 1, 1, 1, 0, 0)


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


_LIMIT = [DEFAULT_MAX_INSTANCES]  # what `unroll` applies when not told


@contextmanager
def instance_limit(n: int | None):
    """Within the block, runs that are not given a limit use `n` (e.g. the analyses of a rewrite
    that a command runs on behalf of its --max-instances)."""
    old = _LIMIT[0]
    _LIMIT[0] = n
    try:
        yield
    finally:
        _LIMIT[0] = old


def unroll(kernel: ir.Kernel, arch: ArchProfile, values: Mapping[str, Number],
           placement: Placement | None = None, markers: bool = False, require_semantics: bool = True,
           max_instances: int | None | str = "default",
           placement_findings: list[Diagnostic] | None = None, cross_core: bool = False) -> Trace:
    """The kernel's issued instructions and syncs with concrete operands (see module doc).

    A run that would execute more than `max_instances` instances (instructions, syncs and loop
    iterations; None: no limit; "default": DEFAULT_MAX_INSTANCES or the `instance_limit` in force)
    raises :class:`InstanceLimit` naming the loops and smaller sizes: before running when the trip
    counts known from `values` already exceed it, else on reaching it."""
    limit = _LIMIT[0] if max_instances == "default" else max_instances
    return Machine(kernel, arch, values, placement, markers, require_semantics, limit, placement_findings,
                   cross_core).run()
