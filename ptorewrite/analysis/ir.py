"""The kernel IR shared by every stage: memory planning, sync insertion, emission, emulation.

A kernel is a structured program (blocks, counted loops, if/else) of PTO instructions.
Each instruction knows its pipe, the tiles and GM windows it reads and writes, and the
exact source range it came from. Tile array indices, offsets and bounds stay symbolic
(`analysis.expr`) where they depend on loop variables or runtime values.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ptorewrite.analysis.expr import Expr


@dataclass(frozen=True)
class SourceRange:
    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    offset: int  # byte offset of the first character in the file
    end_offset: int  # byte offset one past the last character

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def short(self) -> str:
        return f"{self.line}:{self.col}"


# Element sizes in bytes; packed 4-bit types take half a byte.
DTYPE_BYTES = {
    "fp32": 4, "fp16": 2, "bf16": 2, "int32": 4, "uint32": 4, "int16": 2, "uint16": 2,
    "int8": 1, "uint8": 1, "int64": 8, "uint64": 8, "fp8_e4m3": 1, "fp8_e5m2": 1,
    "hif8": 1, "fp8_e8m0": 1, "int4": 0.5, "fp4_e2m1": 0.5, "fp4_e1m2": 0.5, "bool": 1,
}

# The (row, column) edges of an a5 MX scale tile's 32-byte fractal: pto-isa's load_cbuf_to_ca_mx /
# _cb_mx step 16 rows by a column pair (left scales) or a row pair by 16 columns (right scales).
MX_SCALE_FRACTAL = {"ScaleLeft": (16, 2), "ScaleRight": (2, 16)}


@dataclass(frozen=True)
class Alias:
    """A TRESHAPE/TSUBVIEW destination: it names bytes of a base tile, never its own."""

    kind: str  # "TRESHAPE" or "TSUBVIEW"
    base: TileRef
    offset_bytes: Expr
    loc: SourceRange


@dataclass(eq=False)
class TileDecl:
    name: str
    tile_type: str  # Vec, Mat, Left, Right, Acc, Bias, Scaling
    dtype: str
    rows: int
    cols: int
    valid_rows: Expr | None  # None: dynamic, set at construction
    valid_cols: Expr | None
    blayout: str
    slayout: str
    count: int | None  # array length, None for a single tile
    loc: SourceRange  # the whole declaration statement
    type_text: str  # how the user spelled the type
    cpp_name: str = ""  # the variable name in the source (names in the IR are unique)
    per_lane: bool = False  # declared inside a MultiBuffered body: one copy per lane
    lane_text: str = ""  # per-lane tiles: C++ text of the copy index, e.g. `ctx.bufferId`
    lane_constexpr: bool = True  # that index is a compile-time constant (TASSIGN<addr> can use it)
    # Declared in a helper that a MultiBuffered body calls: the lane is not in scope at the
    # declaration, so every lane shares this one copy.
    lanes_shared: bool = False
    # Declared in an inlined helper: the IR scalar a rewrite may declare as a function static of
    # the helper (one per function instance, as C++ gives a static in a template) to count the
    # executions of the declaring block modulo its copies (transform.call_lanes); "" elsewhere.
    lane_counter: str = ""
    counter_block: int = 0  # uid of the block whose every run steps that counter (0: none)
    # Multi-buffered by ptorewrite though declared before its loop: the loop body whose every
    # iteration moves it to its copy (a TASSIGN before the body's first statement).
    lane_at: Block | None = None
    # ... and the statement of that body the TASSIGN goes before, when not its first (a copy
    # chosen by a counter stepped just before it: transform.shared_region).
    lane_moved_at: Stmt | None = None
    # The counter over a lane loop's copies and the tile after them that names this tile's copy
    # (transform.shared_region; "" when none), and for the lane tile its lane loop's own index
    # of the copy, which a helper the lane calls can still name (sync_model.slot_variants).
    shared_counter: str = ""
    lane_index: Expr | None = None
    alias: Alias | None = None
    fixed_addresses: dict[int, int] = field(default_factory=dict)  # slot -> byte address (TASSIGN)
    scope: int = 0  # id of the block that declares it
    declarator: int = -1  # offset of its name: tells apart the tiles of one declaration (`TileT a, b;`)
    # AUTO mode: bytes past the capacity that a TSUBVIEW of this tile reaches; its place reserves them.
    overhang: int = 0
    # CompactMode::Normal (cube tiles): only the valid region is stored, densely, in whole fractals.
    compact: bool = False
    # A ConvTile with dynamic dimensions: the product of its static ones (see types.make_conv_tile).
    conv_static: int = 0
    # When set, slot k's valid columns are the scalar `f"{valid_var}#{k}"`, which the statements
    # that construct the tile assign (a ConvTile's element count, given again by `t[i] = T(h)`);
    # valid_cols is then None, the capacity, for every analysis that does not run the kernel.
    valid_var: str = ""
    fractal: int | None = None  # SFractalSize in bytes where the declaration says (see execution.boxed_window)

    @property
    def elem_bytes(self) -> float:
        return DTYPE_BYTES[self.dtype]

    @property
    def capacity_bytes(self) -> int:
        """Bytes of the capacity shape: rows times columns times element size."""
        return int(self.rows * self.cols * self.elem_bytes)

    @property
    def packed(self) -> bool:
        """Its elements are packed 4-bit values (two per byte)."""
        return self.elem_bytes != int(self.elem_bytes)

    @property
    def storage_bytes(self) -> int:
        """Bytes an instruction may touch of the tile. pto-isa's headers size a UB tile at
        `Rows * Cols * sizeof(DType)`, where the storage type of a packed 4-bit tile is one byte
        (its vector paths step one byte per column); the cube-side paths (L1, L0A/L0B) move packed
        values two per byte (a5's GetByteSize), so there the capacity is what may be touched."""
        if self.packed and self.tile_type != "Vec":
            return self.capacity_bytes
        return self.rows * self.cols * max(1, int(self.elem_bytes))

    def compact_bytes(self, valid_rows: int, valid_cols: int) -> int:
        """Bytes a compact tile with this valid shape stores: its valid rows and columns each
        rounded up to whole fractals. pto-isa rounds rows to 16 or to the 32-byte block (C0) and
        columns to the other, or both to the fractal edge when transposing; rounding both to the
        larger of 16 and C0 covers every form. An a5 MX scale tile's fractal is 32 bytes of 16 x 2
        (16 rows of a column pair for the left scales, a row pair of 16 columns for the right
        ones), and the MX loads into L0A / L0B scales write whole fractals of it and nothing
        more: valid rows and columns round to those edges."""
        row_edge, col_edge = MX_SCALE_FRACTAL.get(self.tile_type, (0, 0))
        if not row_edge:
            row_edge = col_edge = max(16, int(32 / self.elem_bytes))
        return int(-(-valid_rows // row_edge) * row_edge * -(-valid_cols // col_edge) * col_edge * self.elem_bytes)

    @property
    def nbytes(self) -> int:
        """Bytes one tile (one array element) occupies: its capacity, plus any AUTO-mode overhang;
        for a compact tile whose valid shape is known, the valid region it stores."""
        vr = self.valid_rows.const_value() if self.valid_rows is not None else None
        vc = self.valid_cols.const_value() if self.valid_cols is not None else None
        if self.compact and isinstance(vr, int) and isinstance(vc, int):
            return self.compact_bytes(vr, vc) + self.overhang
        return self.capacity_bytes + self.overhang

    @property
    def slots(self) -> int:
        return self.count or 1

    def __repr__(self) -> str:
        return f"TileDecl({self.name})"


@dataclass(frozen=True)
class TileRef:
    tile: TileDecl
    index: Expr | None  # array index, None for a single tile

    def __str__(self) -> str:
        return self.tile.name if self.index is None else f"{self.tile.name}[{self.index}]"


@dataclass(eq=False)
class GmTensor:
    """A GlobalTensor: a 5-D strided view of a kernel pointer argument."""

    name: str
    param: str  # kernel pointer argument it points into
    dtype: str
    shape: tuple[Expr, ...]  # 5 dims, outermost first
    stride: tuple[Expr, ...]  # 5 strides in elements
    offset_bytes: Expr  # byte offset of the view's origin from the argument pointer
    loc: SourceRange
    type_text: str

    def __repr__(self) -> str:
        return f"GmTensor({self.name})"


@dataclass(frozen=True)
class GmRef:
    tensor: GmTensor

    def __str__(self) -> str:
        return f"{self.tensor.name}"


@dataclass(frozen=True)
class RawRegion:
    """Bytes a device intrinsic below the PTO instructions touches (`copy_gm_to_ubuf`, a scalar
    store through an on-chip pointer): `count` bursts of `length` bytes, `stride` bytes apart
    (start to start), from `base`."""

    space: str  # on-chip buffer ("UB", "L1", ...) or "GM"
    param: str | None  # GM: the kernel pointer argument the region is in
    base: Expr  # on-chip: byte address in the buffer; GM: byte offset from the argument
    count: Expr
    length: Expr
    stride: Expr

    def exprs(self) -> tuple[Expr, ...]:
        return (self.base, self.count, self.length, self.stride)

    def __str__(self) -> str:
        where = f"{self.param}+{self.base}" if self.space == "GM" else f"{self.space}@{self.base}"
        return f"{where}[{self.count}x{self.length}B/{self.stride}B]"


@dataclass(frozen=True)
class Arg:
    """One call argument: a tile, a GM window, a raw region or a scalar, with how the instruction
    accesses it."""

    kind: str  # "tile", "gm", "raw", "scalar"
    value: TileRef | GmRef | RawRegion | Expr
    access: str  # "", "r", "w" or "rw"
    text: str  # source spelling

    @property
    def reads(self) -> bool:
        return "r" in self.access

    @property
    def writes(self) -> bool:
        return "w" in self.access


class Stmt:
    loc: SourceRange


@dataclass(eq=False)
class Instr(Stmt):
    op: str
    pipe: str
    args: tuple[Arg, ...]
    template_args: tuple[str, ...]
    loc: SourceRange  # the call statement including its ';'
    via: tuple[SourceRange, ...] = ()  # call sites of inlined helpers, outermost first
    uid: int = -1
    # The copy runs chunk by chunk over its whole GM windows (the staging copies of TPUT/TGET),
    # so it touches them whole rather than one tile's worth.
    whole_gm: bool = False

    @property
    def tile_args(self) -> list[Arg]:
        return [a for a in self.args if a.kind == "tile"]

    @property
    def reads(self) -> list[Arg]:
        return [a for a in self.args if a.reads]

    @property
    def writes(self) -> list[Arg]:
        return [a for a in self.args if a.writes]

    @property
    def scalars(self) -> list[Expr]:
        return [a.value for a in self.args if a.kind == "scalar"]


@dataclass(eq=False)
class AliasDef(Stmt):
    """TRESHAPE(dst, src) / TSUBVIEW(dst, src, r, c): binds dst to src's bytes (scalar unit)."""

    kind: str
    dst: TileRef
    src: TileRef
    offset_bytes: Expr
    loc: SourceRange
    via: tuple[SourceRange, ...] = ()


@dataclass(eq=False)
class TileAssign(Stmt):
    """TASSIGN(tile, addr) in a manual kernel: binds a tile to a buffer address."""

    ref: TileRef
    address: Expr
    loc: SourceRange
    via: tuple[SourceRange, ...] = ()


@dataclass(eq=False)
class Sync(Stmt):
    """set_flag / wait_flag / pipe_barrier written in a manual kernel."""

    kind: str  # "set", "wait", "barrier"
    src: str  # pipe (for a barrier: the pipe it drains)
    dst: str | None
    event: Expr | None
    loc: SourceRange
    via: tuple[SourceRange, ...] = ()


@dataclass(eq=False)
class CrossSync(Stmt):
    """A flag between the cores of one cluster (a5 `set_intra_block` / `wait_intra_block`, a2a3 ffts flags).

    `pipe` is the pipe of the calling core that raises the flag when its earlier work is done
    (set), or that stalls until the flag is raised (wait); `sem` is the semaphore id as written
    (on the cube core ids 16..31 name the second vector core). `channel` "syncall": not one of the
    cluster's semaphores but the cores of the cluster meeting at a SYNCALL (parse.comm), which
    pairs its signals the same way, apart from the kernel's own semaphores."""

    kind: str  # "set", "wait"
    pipe: str
    sem: Expr
    loc: SourceRange
    via: tuple[SourceRange, ...] = ()
    # a2a3 ffts flags (`ffts_cross_core_sync` / `wait_flag_dev`, lowered from a TPipe): named so
    # in diagnostics; a wait is on PIPE_S (it stalls the whole core).
    ffts: bool = False
    channel: str = "intra_block"


@dataclass(eq=False)
class Assign(Stmt):
    """A mutable scalar update, e.g. a ping-pong variable `pp = 1 - pp`."""

    var: str
    value: Expr
    loc: SourceRange


@dataclass(eq=False)
class Block(Stmt):
    stmts: list[Stmt]
    loc: SourceRange | None = None
    uid: int = 0
    inlined: bool = False  # the body of an inlined helper call; loc is the call statement
    # A compound statement `{ ... }` as written (a plain block, the live branch of an `if
    # constexpr`, a loop's or branch's braces), not the statements one source statement lowers to.
    compound: bool = False
    # Inlined helper: the caller's scalar variables its parameters name, IR variable -> the
    # parameter's C++ name (what a statement inside the helper calls the caller's variable).
    param_names: dict[str, str] = field(default_factory=dict)
    # Inlined helper: what each scalar parameter holds at this call, C++ name -> the caller's
    # value (so a line written in the helper's own terms can be read at every call site).
    param_values: dict[str, object] = field(default_factory=dict)
    # Inlined helper template: the instantiation this call makes (lines inside it that differ
    # between instantiations are split on its parameters with `if constexpr`).
    instance: TemplateInstance | None = None


@dataclass(eq=False)
class For(Stmt):
    """A loop over one induction variable.

    Counted form (`cond is None`): `for (var = start; var < stop; var += step)`, half-open, the
    step may be negative with `>`; `stop` is evaluated before every iteration, `step` once.
    General form (`cond` set): `for (var = start; cond; var = update)`, for geometric steps
    (`*= 4`, `>>= 1`) and conditions that are not a comparison of `var` with a bound
    (`blockLen * 4 <= n`); `stop` and `step` are None. The sync planner treats a general loop
    as one whose trip count it does not know (`trip_count()` is None)."""

    var: str
    start: Expr
    stop: Expr | None
    step: Expr | None
    body: Block
    loc: SourceRange
    inclusive: bool = False  # `<=` / `>=` bounds
    kind: str = "for"  # "for", "MultiBuffered" or "while" (a general loop over a counter of its own)
    buffers: int | None = None  # MultiBuffered<N>
    cpp_var: str = ""  # how the induction variable is spelled in C++ inside the body
    cond: Expr | None = None  # general form: the loop runs while this holds
    update: Expr | None = None  # general form: the variable's next value
    keeps_var: bool = False  # the variable is declared before the loop and keeps its last value after it
    # MultiBuffered: the phase this loop runs ("Phase::Main"...) when its body, which reads the
    # phase, is lowered once per phase (one loop each); its statements are then copies of the
    # lambda's text, like an inlined helper's, and must need the same lines in every phase.
    phase: str | None = None

    @property
    def counted(self) -> bool:
        return self.cond is None

    def control_exprs(self) -> tuple[Expr, ...]:
        """Every expression the loop's control evaluates."""
        if self.counted:
            return (self.start, self.stop, self.step)
        return (self.start, self.cond, self.update)

    def trip_count(self, env=None) -> int | None:
        from ptorewrite.analysis.expr import try_eval

        if not self.counted:
            return None
        env = env or {}
        s, e, st = (try_eval(x, env) for x in (self.start, self.stop, self.step))
        if s is None or e is None or st is None or st == 0:
            return None
        if self.inclusive:
            e = e + (1 if st > 0 else -1)
        n = (e - s + st - (1 if st > 0 else -1)) // st
        return max(0, n)


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: Block
    other: Block | None
    loc: SourceRange
    # `if (c) return;` at the top of a function, lowered as `if (!c) { rest of the function }`:
    # (the guard's body, `return;` or `{ return; }`, and the return statement). Code placed after
    # this If runs at the function's end, so it also goes before the return.
    exit: tuple[SourceRange, SourceRange] | None = None


@dataclass(frozen=True)
class Param:
    name: str
    type_text: str
    dtype: str | None  # element type for GM pointers
    is_pointer: bool


@dataclass(frozen=True)
class TemplateInstance:
    """A kernel lowered for one instantiation of a kernel template."""

    template: str  # the template's name
    params: tuple[tuple[str, str], ...]  # (kind "type" or "value", name) per template parameter
    args: tuple[str, ...]  # the arguments as clang spells them, one per parameter
    body: tuple[int, int]  # byte range of the template's body in the kernel file


@dataclass(eq=False)
class Kernel:
    name: str
    file: str
    arch: str
    core: str  # "vec", "cube" or "mixed"
    params: list[Param]
    tiles: list[TileDecl]
    gm_tensors: list[GmTensor]
    body: Block
    source: bytes
    mode: str  # "auto" or "manual"
    runtime_values: tuple[str, ...] = ()  # names the emulator must be given (e.g. block_idx)
    # The runtime values the scalar unit reads from buffer elements (`ub[i]`, `t.GetValue(i)`).
    element_values: tuple[str, ...] = ()
    instance: TemplateInstance | None = None  # set for an instantiation of a kernel template
    early_returns: tuple[SourceRange, ...] = ()  # returns inside a loop or a branch (see parse.lower)
    # Run-time values the file's own launches pass to the kernel's scalar parameters, one sorted
    # (name, value) tuple per distinct launch (see parse.launch_values); the emulator's defaults.
    launches: tuple[tuple[tuple[str, int], ...], ...] = ()
    # How the other cores of its cluster meet this kernel, for planning it alone (set by the
    # rewrite of a cluster; see analysis.cluster_view).
    cluster: object = None
    # Where a helper calls a lambda the kernel passed it (parse.loops.call_closure).
    lambda_calls: tuple[SourceRange, ...] = ()

    def instructions(self) -> Iterator[Instr]:
        for s in walk(self.body):
            if isinstance(s, Instr):
                yield s

    def tile(self, name: str) -> TileDecl:
        for t in self.tiles:
            if t.name == name:
                return t
        raise KeyError(name)


def data_branch_vars(s: If) -> set[str] | None:
    """The variables an `if` assigns when its branches hold nothing but scalar assignments (and
    such ifs), else None. Its condition then decides values only, never what is issued: a
    condition known only at run time leaves those variables unknown instead of steering."""
    assigned: set[str] = set()
    for part in (s.then, s.other):
        for x in walk(part) if part is not None else ():
            if isinstance(x, Assign):
                assigned.add(x.var)
            elif not isinstance(x, (Block, If)):
                return None
    return assigned


SCALAR_LOAD = "ScalarLoad"  # the scalar unit reads an element through an on-chip pointer


def read_only_loop(s: For) -> list[Instr] | None:
    """The scalar-unit element reads of a loop whose body does nothing else but assign scalars
    (`for (i < n) if (ub[i * 8] != i) ok = 0;`), else None. Such a loop issues no pipe work and
    no sync: with its trip count unknown, one read of every byte it may reach stands for it."""
    reads: list[Instr] = []
    for x in walk(s.body):
        if isinstance(x, Instr) and x.op == SCALAR_LOAD:
            reads.append(x)
        elif isinstance(x, If):
            if data_branch_vars(x) is None and not _reads_and_assigns(x):
                return None
        elif not isinstance(x, (Block, Assign)):
            return None
    return reads


def _reads_and_assigns(s: If) -> bool:
    return all(isinstance(x, (Block, Assign, If)) or (isinstance(x, Instr) and x.op == SCALAR_LOAD)
               for part in (s.then, s.other) if part is not None for x in walk(part))


def assigned_vars(s: Stmt) -> set[str]:
    return {x.var for x in walk(s) if isinstance(x, Assign)}


def walk(stmt: Stmt) -> Iterator[Stmt]:
    """Pre-order walk over every statement."""
    yield stmt
    if isinstance(stmt, Block):
        for s in stmt.stmts:
            yield from walk(s)
    elif isinstance(stmt, For):
        yield from walk(stmt.body)
    elif isinstance(stmt, If):
        yield from walk(stmt.then)
        if stmt.other is not None:
            yield from walk(stmt.other)
