"""Resolved C++ types the front end cares about: scalars, tiles, GM tensors, shapes, pointers.

Knowledge of pto-isa's public type templates (parameter order and defaults) lives here,
so the front end works the same against the bundled headers and real pto-isa headers.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptorewrite.analysis.expr import Const, Expr, Var, as_expr, binop

# C++ spellings of element types -> the IR's dtype names.
DTYPE_NAMES = {
    "float": "fp32", "float32_t": "fp32", "half": "fp16", "float16_t": "fp16", "__fp16": "fp16",
    "_Float16": "fp16", "bfloat16_t": "bf16", "bfloat16": "bf16", "double": "fp64",
    "int8_t": "int8", "uint8_t": "uint8", "int16_t": "int16", "uint16_t": "uint16",
    "int32_t": "int32", "uint32_t": "uint32", "int64_t": "int64", "uint64_t": "uint64",
    "int": "int32", "unsigned": "uint32", "unsigned int": "uint32", "short": "int16",
    "unsigned short": "uint16", "char": "int8", "signed char": "int8", "unsigned char": "uint8",
    "long": "int64", "long long": "int64", "unsigned long": "uint64", "size_t": "uint64",
    "bool": "bool", "int4b_t": "int4", "float8_e4m3_t": "fp8_e4m3", "float8_e5m2_t": "fp8_e5m2",
    "hifloat8_t": "hif8", "float8_e8m0_t": "fp8_e8m0", "float4_e2m1x2_t": "fp4_e2m1", "float4_e1m2x2_t": "fp4_e1m2",
    "event_t": "int32", "pipe_t": "int32", "auto": "auto",
    "long int": "int64", "long long int": "int64", "unsigned long int": "uint64", "long unsigned int": "uint64",
    "unsigned long long": "uint64", "unsigned long long int": "uint64", "long long unsigned int": "uint64",
    "short int": "int16", "unsigned short int": "uint16", "short unsigned int": "uint16", "signed": "int32",
    "signed int": "int32", "signed short": "int16", "signed long": "int64",
    "ptrdiff_t": "int64", "intptr_t": "int64", "uintptr_t": "uint64", "ssize_t": "int64",
}

# Type macros every clang/gcc predefines (the standard headers spell size_t, int32_t, ... with them);
# values for the LP64 targets the device compiler and the host share.
PREDEFINED_TYPE_MACROS = {
    "__SIZE_TYPE__": "uint64", "__PTRDIFF_TYPE__": "int64", "__INTPTR_TYPE__": "int64",
    "__UINTPTR_TYPE__": "uint64", "__INTMAX_TYPE__": "int64", "__UINTMAX_TYPE__": "uint64",
    "__WCHAR_TYPE__": "int32", "__WINT_TYPE__": "uint32", "__CHAR16_TYPE__": "uint16", "__CHAR32_TYPE__": "uint32",
    "__INT8_TYPE__": "int8", "__INT16_TYPE__": "int16", "__INT32_TYPE__": "int32", "__INT64_TYPE__": "int64",
    "__UINT8_TYPE__": "uint8", "__UINT16_TYPE__": "uint16", "__UINT32_TYPE__": "uint32",
    "__UINT64_TYPE__": "uint64",
}
DTYPE_NAMES.update(PREDEFINED_TYPE_MACROS)

TILE_TYPES = ("Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling", "ScaleLeft", "ScaleRight")


@dataclass(frozen=True)
class ScalarType:
    dtype: str


@dataclass(frozen=True)
class PointerType:
    dtype: str
    record: RecordType | None = None  # a pointer to a user struct (dtype "uint8": its bytes)


@dataclass(frozen=True)
class RecordField:
    name: str
    offset: int  # bytes from the start of the struct
    type: ScalarType | PointerType | ArrayType | RecordType | OpaqueType


@dataclass(frozen=True)
class RecordType:
    """A user struct of scalars, pointers, scalar arrays and nested structs, laid out as clang
    lays it out (offsets and size in bytes)."""

    name: str
    size: int
    fields: tuple[RecordField, ...]

    def field(self, name: str) -> RecordField | None:
        return next((f for f in self.fields if f.name == name), None)


@dataclass(frozen=True)
class ArrayType:
    """A fixed-length scalar array type named by an alias (`using Key = uint32_t[2];`)."""
    dtype: str
    length: int


@dataclass(frozen=True)
class TileType:
    tile_type: str
    dtype: str
    rows: int
    cols: int
    blayout: str
    valid_rows: Expr | None  # None when DYNAMIC (given to the constructor)
    valid_cols: Expr | None
    slayout: str
    text: str
    compact: bool = False  # CompactMode::Normal: only the valid region is stored, densely
    # A ConvTile with dynamic dimensions: the product of its static ones (its constructor's values
    # multiply it into the element count); 0 otherwise.
    conv_static: int = 0
    fractal: int | None = None  # SFractalSize of a Tile<...> (512 unless given); None: not known

    @property
    def row_stride(self) -> int:
        return self.cols if self.blayout == "RowMajor" else 1

    @property
    def col_stride(self) -> int:
        return 1 if self.blayout == "RowMajor" else self.rows


@dataclass(frozen=True)
class DimsType:
    """Shape<...> or Stride<...> (or TileShape2D / BaseShape2D): five entries, -1 dynamic."""

    kind: str  # "shape" or "stride"
    dims: tuple[Expr, ...]
    # A 2-D shape or stride whose extents its constructor gives (`BaseShape2D<T, -1, -1, ND>(r, c)`):
    # (layout, element type, rows, cols), -1 where the constructor fills in; see with_extents.
    extents2d: tuple | None = None

    def dynamic_count(self) -> int:
        if self.extents2d is not None:
            return sum(1 for e in self.extents2d[2:] if _is_dynamic(e))
        return sum(1 for d in self.dims if d.const_value() == DYNAMIC)

    def with_extents(self, values: list[Expr]) -> DimsType:
        """A 2-D shape or stride with its dynamic extents (in order: rows, cols) given, or with
        both extents given (pto-isa's two-value constructor takes rows and cols whichever of them
        the template fixes; only the entries the template leaves dynamic take the values)."""
        layout, dtype, rows, cols = self.extents2d
        if len(values) == 2 and self.dynamic_count() < 2:
            given = _dims2d(self.kind, layout, dtype, values[0], values[1])
            fixed = _dims2d_template(self.kind, layout, dtype, rows, cols)
            return DimsType(self.kind, tuple(g if _is_dynamic(f) else f for f, g in zip(fixed, given)))
        it = iter(values)
        rows = next(it) if _is_dynamic(rows) else as_expr(_int(rows))
        cols = next(it) if _is_dynamic(cols) else as_expr(_int(cols))
        dims = _dims2d(self.kind, layout, dtype, rows, cols)
        return DimsType(self.kind, dims)


@dataclass(frozen=True)
class GmType:
    dtype: str
    shape: tuple[Expr, ...]
    stride: tuple[Expr, ...]
    layout: str
    text: str


@dataclass(frozen=True)
class OpaqueType:
    text: str


@dataclass(frozen=True)
class MultiBufferType:
    """pto-isa's `MultiBuffered<N>` loop helper."""

    buffers: int


@dataclass(frozen=True)
class MultiStagedType:
    """pto-isa's `MultiStaged<N>`: `run(stage, stages...)` calls its stage functions in order."""

    stages: int


@dataclass(frozen=True)
class RangeType:
    """`Range<N, M...>`: the iteration space of a MultiBuffered loop."""

    dims: tuple[int, ...]


@dataclass(frozen=True)
class EventType:
    """pto-isa's `Event<Op::Src, Op::Dst, AutoToken = true, EventID = 0>`."""

    src_class: str  # the Op enumerator names, e.g. "TLOAD"
    dst_class: str
    auto_token: bool
    event_id: Expr


@dataclass(frozen=True)
class PipeType:
    """pto-isa's cross-core FIFO `TPipe<FlagID, Direction, SlotSize, SlotNum, LocalSlotNum = 2,
    IsNoSplit = false, EN_UNIT_FLAG = false>` (see parse.fifo)."""

    flag_id: int
    direction: str  # the Direction enumerator, e.g. "DIR_C2V"
    slot_size: int  # bytes
    slot_num: int
    no_split: bool
    local_slot_num: int = 2  # a2a3: the consumer's on-chip slots (its copy of each tile)
    unit_flag: bool = False  # EN_UNIT_FLAG: an accumulator's push is a store with STPhase::Final

    @property
    def sync_period(self) -> int:
        """How many slots one free signal covers (and how many the constructor frees)."""
        return self.slot_num if self.slot_num <= 2 else self.slot_num // 2


@dataclass(frozen=True)
class SyncCustomType:
    """pto-isa's a5 cross-core flag pair `TSync_Custom<SyncOpType::Producer, SyncOpType::Consumer>`
    (see parse.mpipe)."""

    producer: str  # the SyncOpType enumerator, e.g. "TMOV_C2UB"
    consumer: str


@dataclass(frozen=True)
class MPipeType:
    """pto-isa's `TMPipe<FlagID, FIFOType, Depth, SyncPeriod, ProducerTile, ConsumerTile,
    EN_UNIT_FLAG = false, LocalDepth = 2, VecCubeRatio = V2C1_VECS>` (see parse.mpipe)."""

    flag_id: int
    fifo_type: str  # the FIFOType enumerator, e.g. "VEC_FIFO"
    depth: int
    period: int
    prod: TileType
    cons: TileType
    local_depth: int
    vec_cores: int  # 2 for V2C1_VECS, else 1
    unit_flag: bool = False  # EN_UNIT_FLAG: an accumulator's push is a store with STPhase::Final


@dataclass(frozen=True)
class MPipeFifo:
    """`SomeTMPipe::DataFiFo`: the type of a TMPipe's ring, read for its depth and period."""

    pipe: MPipeType


@dataclass(frozen=True)
class PipeRing:
    """`SomeTPipe::RingFiFo`: the type of a TPipe's ring of slots, read for its geometry."""

    pipe: PipeType


@dataclass(frozen=True, eq=False)
class ClassType:
    """A user class template's selected specialization (members resolved on use)."""

    name: str
    cursor: object  # the libclang cursor of the specialization
    scope: object  # its template parameters, bound


ResolvedType = ClassType | PipeType | MPipeType | MPipeFifo | SyncCustomType | EventType | ScalarType | PointerType | TileType | DimsType | GmType | OpaqueType | MultiBufferType | MultiStagedType | RangeType

DYNAMIC = -1


def enum_member(value, enum: str) -> str:
    """`TileType::Vec` (as a Const string) -> "Vec"; checks the enum name when present."""
    if isinstance(value, Expr):
        value = value.const_value()
    if not isinstance(value, str):
        raise TypeError(f"expected a {enum} value")
    parts = value.split("::")
    if len(parts) >= 2 and parts[-2] != enum:
        raise TypeError(f"expected a {enum} value, got {value}")
    return parts[-1]


def _int(v) -> int:
    c = v.const_value() if isinstance(v, Expr) else v
    if not isinstance(c, (int, bool)):
        raise TypeError("expected a compile-time integer")
    return int(c)


def make_tile(args: list, text: str) -> TileType:
    """Tile<Loc, DType, Rows, Cols, BLayout, RowValid, ColValid, SLayout, SFractalSize, PadVal, Compact>."""
    if len(args) < 4:
        raise TypeError("Tile needs at least TileType, element type, Rows and Cols")
    loc = enum_member(args[0], "TileType")
    dtype = _dtype(args[1])
    rows, cols = _int(args[2]), _int(args[3])
    blayout = enum_member(args[4], "BLayout") if len(args) > 4 else "RowMajor"
    vr = args[5] if len(args) > 5 else Const(rows)
    vc = args[6] if len(args) > 6 else Const(cols)
    slayout = enum_member(args[7], "SLayout") if len(args) > 7 else "NoneBox"
    compact = len(args) > 10 and enum_member(args[10], "CompactMode") == "Normal"
    fractal = _fractal_size(args[8]) if len(args) > 8 else 512
    return TileType(loc, dtype, rows, cols, blayout, _valid(vr), _valid(vc), slayout, text, compact, fractal=fractal)


# pto-isa's TileConfig sizes a kernel may name as a Tile's SFractalSize (a qualified name in a
# template argument list is read as its text).
TILE_CONFIG_SIZES = {"fractalABSize": 512, "fractalCSize": 1024, "fractalMxSize": 32}


def _fractal_size(v) -> int | None:
    """A Tile's SFractalSize argument in bytes; None when it is not a known constant."""
    c = v.const_value() if isinstance(v, Expr) else v
    if isinstance(c, str):
        c = TILE_CONFIG_SIZES.get(c.split("::")[-1])
    return int(c) if isinstance(c, (int, bool)) else None


def _valid(v) -> Expr | None:
    return None if isinstance(v, Expr) and v.const_value() == DYNAMIC else v


def _dtype(v) -> str:
    if isinstance(v, ScalarType):
        return v.dtype
    raise TypeError("expected an element type")


# Layout of the convenience aliases: (TileType, BLayout, SLayout) per architecture.
_ALIAS_TILES = {
    "TileLeft": ("Left", {"a2a3": "RowMajor", "a5": "ColMajor"}, "RowMajor"),
    "TileLeftCompact": ("Left", {"a2a3": "RowMajor", "a5": "ColMajor"}, "RowMajor"),
    "TileRight": ("Right", {"a2a3": "RowMajor", "a5": "RowMajor"}, "ColMajor"),
    "TileRightCompact": ("Right", {"a2a3": "RowMajor", "a5": "RowMajor"}, "ColMajor"),
    "TileAcc": ("Acc", {"a2a3": "ColMajor", "a5": "ColMajor"}, "RowMajor"),
    "TileAccCompact": ("Acc", {"a2a3": "ColMajor", "a5": "ColMajor"}, "RowMajor"),
    # a5 MX: the per-group scales of a Left / Right operand, in their own L0A / L0B scale buffers.
    "TileLeftScale": ("ScaleLeft", {"a2a3": "RowMajor", "a5": "RowMajor"}, "RowMajor"),
    "TileLeftScaleCompact": ("ScaleLeft", {"a2a3": "RowMajor", "a5": "RowMajor"}, "RowMajor"),
    "TileRightScale": ("ScaleRight", {"a2a3": "ColMajor", "a5": "ColMajor"}, "ColMajor"),
    "TileRightScaleCompact": ("ScaleRight", {"a2a3": "ColMajor", "a5": "ColMajor"}, "ColMajor"),
}


def make_alias_tile(name: str, args: list, arch: str, text: str) -> TileType:
    """TileLeft<DType, Rows, Cols, RowValid = Rows, ColValid = Cols> and friends."""
    loc, blayouts, slayout = _ALIAS_TILES[name]
    dtype = _dtype(args[0])
    rows, cols = _int(args[1]), _int(args[2])
    vr = args[3] if len(args) > 3 else Const(rows)
    vc = args[4] if len(args) > 4 else Const(cols)
    return TileType(loc, dtype, rows, cols, blayouts[arch], _valid(vr), _valid(vc), slayout, text,
                    name.endswith("Compact"))


def make_dims(kind: str, args: list) -> DimsType:
    dims = [a if isinstance(a, Expr) else Const(_int(a)) for a in args]
    dims += [Const(DYNAMIC)] * (5 - len(dims))
    return DimsType(kind, tuple(dims[:5]))


def _is_dynamic(v) -> bool:
    c = v.const_value() if isinstance(v, Expr) else v
    return c == DYNAMIC


def _dims2d(kind: str, layout: str, dtype: str, rows: Expr, cols: Expr) -> tuple[Expr, ...]:
    """The 5-D shape or stride of a rows x cols matrix (ND, DN or NZ) of expressions."""
    one = Const(1)
    if kind == "shape":
        if layout == "NZ":
            c0 = Const(32 // max(1, _elem_bytes(dtype)))
            return (one, binop("/", cols, c0), binop("/", rows, Const(16)), Const(16), c0)
        return (one, one, one, rows, cols)
    whole = binop("*", rows, cols)
    if layout == "DN":
        return (whole, whole, whole, one, rows)
    if layout == "NZ":
        c0 = Const(32 // max(1, _elem_bytes(dtype)))
        return (whole, binop("*", rows, c0), Const(16 * c0.value), c0, one)
    return (whole, whole, whole, cols, one)


def _dims2d_template(kind: str, layout: str, dtype: str, rows, cols) -> tuple[Expr, ...]:
    """The entries a 2-D shape or stride template fixes: every entry that depends on a dynamic
    extent is dynamic (-1), as pto-isa's TileShape2D / BaseShape2D compute them."""
    r = Var("__rows") if _is_dynamic(rows) else as_expr(_int(rows))
    c = Var("__cols") if _is_dynamic(cols) else as_expr(_int(cols))
    return tuple(d if isinstance(d.const_value(), int) else Const(DYNAMIC) for d in _dims2d(kind, layout, dtype, r, c))


def make_shape2d(args: list) -> DimsType:
    """TileShape2D<T, rows, cols, Layout>: a 2-D shape as 5-D [1, 1, 1, rows, cols] (ND/DN)."""
    layout = enum_member(args[3], "Layout") if len(args) > 3 else "ND"
    rows, cols = args[1], args[2]
    if layout in ("ND", "DN", "NZ") and (_is_dynamic(rows) or _is_dynamic(cols)):
        return DimsType("shape", _dims2d_template("shape", layout, _dtype(args[0]), rows, cols),
                        (layout, _dtype(args[0]), rows, cols))
    if layout == "NZ":
        c0 = 32 // max(1, _elem_bytes(_dtype(args[0])))
        return DimsType("shape", (Const(1), Const(_int(cols) // c0), Const(_int(rows) // 16), Const(16), Const(c0)))
    if layout in _MX_2D:
        return DimsType("shape", _mx_dims(_MX_2D[layout][0], rows, cols))
    return DimsType("shape", (Const(1), Const(1), Const(1), rows, cols))


# The a5 MX scale layouts, as functions of (rows, cols): the 5-D shape and stride (scales come
# in pairs along K; ZZ / NN group them in 16 x 2 blocks of 32 bytes).
_MX_2D = {
    "MX_A_ZZ": (lambda r, c: (1, r // 16, c // 2, 16, 2), lambda r, c: (r * c, c * 16, 32, 2, 1)),
    "MX_A_ND": (lambda r, c: (1, 1, r, c // 2, 2), lambda r, c: (r * c, r * c, c, 2, 1)),
    "MX_A_DN": (lambda r, c: (1, 1, c // 2, r, 2), lambda r, c: (r * c, r * c, r * 2, 2, 1)),
    "MX_B_NN": (lambda r, c: (1, c // 16, r // 2, 16, 2), lambda r, c: (r * c, r * 16, 32, 2, 1)),
    "MX_B_ND": (lambda r, c: (1, 1, r // 2, c, 2), lambda r, c: (r * c, r * c, c * 2, 2, 1)),
    "MX_B_DN": (lambda r, c: (1, 1, c, r // 2, 2), lambda r, c: (r * c, r * c, r, 2, 1)),
}


def _mx_dims(fn, rows, cols) -> tuple[Const, ...]:
    """Evaluate an MX layout function of constant extents (a dynamic one would need the
    constructor's values spread over several entries: refused rather than guessed)."""
    r, c = _int(rows), _int(cols)
    if DYNAMIC in (r, c):
        raise TypeError("an MX scale layout with a run-time extent is not supported")
    return tuple(Const(v) for v in fn(r, c))


def make_stride2d(args: list) -> DimsType:
    """BaseShape2D<T, rows, cols, Layout>: the strides of a dense rows x cols matrix."""
    layout = enum_member(args[3], "Layout") if len(args) > 3 else "ND"
    rows, cols = _int(args[1]), _int(args[2])
    if DYNAMIC in (rows, cols) and layout in ("ND", "DN", "NZ"):
        # Extents the constructor gives: every stride that depends on them is filled in then.
        return DimsType("stride", _dims2d_template("stride", layout, _dtype(args[0]), rows, cols),
                        (layout, _dtype(args[0]), rows, cols))
    whole = Const(rows * cols)
    if layout == "DN":
        return DimsType("stride", (whole, whole, whole, Const(1), Const(rows)))
    if layout == "NZ":
        c0 = 32 // max(1, _elem_bytes(_dtype(args[0])))
        return DimsType("stride", (whole, Const(rows * c0), Const(16 * c0), Const(c0), Const(1)))
    if layout in _MX_2D:
        return DimsType("stride", _mx_dims(_MX_2D[layout][1], args[1], args[2]))
    return DimsType("stride", (whole, whole, whole, Const(cols), Const(1)))


def _elem_bytes(dtype: str) -> int:
    from ptorewrite.analysis.ir import DTYPE_BYTES

    return max(1, int(DTYPE_BYTES.get(dtype, 1)))


def make_global_tensor(args: list, text: str) -> GmType:
    """GlobalTensor<Element, Shape, Stride, Layout = ND>."""
    dtype = _dtype(args[0])
    shape = args[1] if len(args) > 1 else make_dims("shape", [])
    stride = args[2] if len(args) > 2 else make_dims("stride", [])
    if not isinstance(shape, DimsType) or not isinstance(stride, DimsType):
        raise TypeError("GlobalTensor needs Shape<...> and Stride<...> arguments")
    layout = enum_member(args[3], "Layout") if len(args) > 3 else "ND"
    return GmType(dtype, shape.dims, stride.dims, layout, text)


def make_event(args: list) -> EventType:
    if len(args) < 2:
        raise TypeError("Event needs a source and a destination Op")
    src, dst = enum_member(args[0], "Op"), enum_member(args[1], "Op")
    auto = bool(_int(args[2])) if len(args) > 2 else True
    event_id = args[3] if len(args) > 3 else Const(0)
    return EventType(src, dst, auto, event_id)


DIRECTIONS = {1: "DIR_C2V", 2: "DIR_V2C", 3: "DIR_BOTH", 4: "DIR_V2C_CTRL", 5: "DIR_C2V_GM", 6: "DIR_V2C_GM",
              7: "DIR_BOTH_GM"}


def make_pipe(args: list) -> PipeType:
    if len(args) < 4:
        raise TypeError("TPipe needs a flag id, a direction, a slot size and a slot count")
    d = args[1].const_value() if isinstance(args[1], Expr) else args[1]
    if isinstance(d, int):
        d = DIRECTIONS.get(d & 0x7, str(d))
    elif isinstance(d, str):
        d = d.split("::")[-1]
    else:
        raise TypeError("the direction must be a Direction constant")
    no_split = bool(_int(args[5])) if len(args) > 5 else False
    local = _int(args[4]) if len(args) > 4 else 2
    unit_flag = bool(_int(args[6])) if len(args) > 6 else False
    return PipeType(_int(args[0]), d, _int(args[2]), _int(args[3]), no_split, local, unit_flag)


SYNC_OPS = ("TSTORE_C2GM", "TSTORE_V2GM", "TMOV_C2UB", "TINSERT_V2L1", "TLOAD")
FIFO_TYPES = ("GM_FIFO", "VEC_FIFO", "MAT_FIFO", "CTRL_FIFO")


def make_sync_custom(args: list) -> SyncCustomType:
    if len(args) != 2:
        raise TypeError("TSync_Custom needs a producer and a consumer SyncOpType")
    prod, cons = (_enum_value(a, "SyncOpType", SYNC_OPS) for a in args)
    if cons != "TLOAD":
        raise TypeError("the consumer operation must be SyncOpType::TLOAD")
    if prod == "TLOAD":
        raise TypeError("the producer must be TSTORE_C2GM, TMOV_C2UB, TSTORE_V2GM or TINSERT_V2L1")
    return SyncCustomType(prod, cons)


def make_mpipe(args: list) -> MPipeType:
    if len(args) < 6:
        raise TypeError("TMPipe needs a flag id, a FIFOType, a depth, a sync period and the producer and "
                        "consumer tile types")
    prod, cons = args[4], args[5]
    if not isinstance(prod, TileType) or not isinstance(cons, TileType):
        raise TypeError("the producer and consumer types must be Tile types")
    local = _int(args[7]) if len(args) > 7 else 2
    ratio = _enum_value(args[8], "VecCubeRatio", ("V1C1_VEC0", "V1C1_VEC1", "V2C1_VECS")) if len(args) > 8 \
        else "V2C1_VECS"
    unit_flag = bool(_int(args[6])) if len(args) > 6 else False
    return MPipeType(_int(args[0]), _enum_value(args[1], "FIFOType", FIFO_TYPES), _int(args[2]), _int(args[3]),
                     prod, cons, local, 2 if ratio == "V2C1_VECS" else 1, unit_flag)


def _enum_value(v, enum: str, names: tuple[str, ...]) -> str:
    """An enumerator given by name (`FIFOType::VEC_FIFO`) or by its value (its index in `names`)."""
    c = v.const_value() if isinstance(v, Expr) else v
    if isinstance(c, int) and not isinstance(c, bool) and 0 <= c < len(names):
        return names[c]
    name = enum_member(v, enum)
    if name not in names:
        raise TypeError(f"expected a {enum} value, got {name}")
    return name


# Plain structs of the PTO API that kernels declare and pass to instructions.
PTO_STRUCTS = frozenset({"MrgSortExecutedNumList", "TPipe::Producer", "TPipe::Consumer"})
# pto-isa's scalar array aliases: TRANDOM's key and counter words.
PTO_ARRAY_TYPES = {"TRandomKey": ArrayType("uint32", 2), "TRandomCounter": ArrayType("uint32", 4)}

PTO_TYPE_TEMPLATES = frozenset(
    {"Tile", "Event", "GlobalTensor", "Shape", "Stride", "TileShape2D", "BaseShape2D", "MultiBuffered", "MultiStaged", "Range",
     "ConvTile", "ConvTileShape", "TPipe", "TMPipe", "TSync_Custom", *_ALIAS_TILES}
)


@dataclass(frozen=True)
class ConvShapeType:
    """ConvTileShape<...>: the 1-D to 6-D shape of a ConvTile, -1 dynamic."""

    dims: tuple[int, ...]


def make_conv_shape(args: list) -> ConvShapeType:
    if not 1 <= len(args) <= 6:
        raise TypeError("ConvTileShape takes 1 to 6 dimensions")
    return ConvShapeType(tuple(_int(a) for a in args))


def make_conv_tile(args: list, text: str) -> TileType:
    """ConvTile<TileType, DType, BufferSize, Layout, ConvTileShape<...>>: an N-D tile of the
    img2col and layout-conversion paths. It is modelled as one row of its elements, touched
    whole by every access (the N-D layout is not modelled byte for byte): the product of its
    shape. With dynamic dimensions the constructor gives them (`T(h)`), so the element count is
    a valid extent known at run time (the product of the static dimensions times the values),
    within a capacity of BufferSize elements: pto-isa's unit, the AUTO compiler's `tile_size`
    as for a Tile's Rows * Cols (a kernel that gives it in bytes declares more room, not less)."""
    if len(args) != 5 or not isinstance(args[4], ConvShapeType):
        raise TypeError("ConvTile needs a TileType, an element type, a buffer size, a Layout and a ConvTileShape")
    loc = enum_member(args[0], "TileType")
    dtype = _dtype(args[1])
    layout = enum_member(args[3], "Layout")
    dims = args[4].dims
    elems = 1
    for d in dims:
        elems *= d if d != DYNAMIC else 1
    if DYNAMIC in dims:
        capacity = _int(args[2])
        if capacity <= 0 or elems <= 0:
            raise TypeError("a ConvTile needs a positive size")
        return TileType(loc, dtype, 1, capacity, "RowMajor", Const(1), None, f"Conv{layout}", text,
                        conv_static=elems)
    if elems <= 0:
        raise TypeError("a ConvTile needs a positive size")
    return TileType(loc, dtype, 1, elems, "RowMajor", Const(1), Const(elems), f"Conv{layout}", text)
