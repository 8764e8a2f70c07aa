"""What names stand for while lowering: values (GM pointers, loop contexts, ...), bindings, scopes
and call frames, shared by the parts of the lowering (`lower`, `typeres`, `calls`, `loops`,
`events`, `consteval`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clang.cindex import Cursor

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr
from ptorewrite.parse import types as ty
from ptorewrite.parse.source import SourceFile

# Namespaces whose qualification is dropped when resolving a name.
NAMESPACES = frozenset({"pto", "std", "AscendC", "pto_auto", "comm", "GlobalTensorDim"})

@dataclass(eq=False)
class EventObject:
    """One constructed `Event<>` variable."""

    name: str
    src_class: str
    dst_class: str
    src: str  # pipe
    dst: str
    token: Expr
    cross_core: bool

    @property
    def same_pipe(self) -> bool:
        return self.src == self.dst


@dataclass(frozen=True)
class Ptr:
    """A GM pointer: a kernel argument plus a byte offset."""

    param: str
    offset_bytes: Expr
    dtype: str
    record: ty.RecordType | None = None  # it points to a user struct (see parse/records.py)
    # Converted to an integer (`(uint64_t)p`): arithmetic on it counts bytes, and where it is
    # made a pointer again it is checked for addresses read from GM (see Lowering._eval_Cast).
    as_integer: bool = False
    # A pointer variable declared null and set later (see PtrState.null_var): the mutable scalar
    # that is 1 while it is null; `p != nullptr` tests it.
    null_var: str | None = None


class NullPointer:
    """`nullptr`: a pointer argument a helper receives and must not use (a bias pointer the
    helper's template arguments leave unused). Any use of it as an address is refused."""

    def __repr__(self) -> str:
        return "nullptr"


NULL_POINTER = NullPointer()


@dataclass(frozen=True)
class TileConstruction:
    """`TileT(rows, cols)` as a value (a helper that returns a tile it constructs): the tile type
    and the constructor's valid-shape arguments, declared as a tile where it initializes one."""

    type: ty.TileType
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class LocalPtr:
    """A pointer into an on-chip buffer (`tile.data()`): a byte address and the element type its
    arithmetic counts in. Used as a number (`(uint64_t)p`, a TASSIGN address) it is the address."""

    address: Expr
    dtype: str
    space: str | None = None  # the buffer ("UB", "L1", ...) where known


@dataclass(frozen=True)
class ArrayPointer:
    """A pointer into a local scalar array (`uint64_t *p = stack;`): what is stored through it
    stays in the core's own stack memory, which no pipe touches; the array's elements become
    values known only at run time."""

    array: Any


@dataclass(frozen=True)
class ScalarAddress:
    """`&x` of a local scalar: only read back through a pointer cast (`*reinterpret_cast<int32_t
    *>(&scale)`, the bits of a float), which gives a run-time data value."""

    value: Expr


@dataclass(frozen=True)
class MultiBufferLoop:
    """A `MultiBuffered<N>` object, or the `inner` invoker of a nested Range (dims known)."""

    buffers: int
    dims: tuple[int, ...] | None


@dataclass(frozen=True, eq=False)
class Closure:
    """A lambda written in the kernel, as a value: its text and the scope it was written in (the
    lambdas of kernels capture by reference, so a call runs its body with those names)."""

    node: Any  # the parsed lambda (cparse.Lambda)
    scope: Scope
    src: Any  # the SourceFile its offsets count in


@dataclass(frozen=True)
class StageRunner:
    """A `MultiStaged<N>` object: `run(f, fs...)` calls each stage function once, in order."""

    stages: int


@dataclass(frozen=True)
class LaneContext:
    """The `ctx` a MultiBuffered body receives."""

    iter: Expr
    buffer_id: Expr
    phase: Expr


@dataclass
class GmState:
    """Bookkeeping of a GlobalTensor variable, for TASSIGN(tensor, ptr) re-pointing."""

    level: tuple[int, int]  # control level of the declaration (see Lowering._control_level)
    used_in: set = field(default_factory=set)  # enclosing loop ids at each use
    repointed_at: ir.SourceRange | None = None  # set when re-pointed inside a deeper block


@dataclass(frozen=True)
class StructValue:
    """A variable of a PTO result struct (`MrgSortExecutedNumList`): no tile data."""

    name: str
    type_name: str


@dataclass(eq=False)
class RecordValue:
    """A user struct held by value: its type and each field's value (see parse/records.py)."""

    type: ty.RecordType
    fields: dict[str, Any]

    def copy(self) -> RecordValue:
        """A struct copied by value: nested structs are copied too (scalar arrays are not members
        a copy may change: only compile-time helpers change members)."""
        return RecordValue(self.type, {k: v.copy() if isinstance(v, RecordValue) else v for k, v in self.fields.items()})


@dataclass(frozen=True)
class TileChoice:
    """`auto &t = cond ? a : b;`: a reference to one of two tiles, chosen at run time. The
    declaration captures the condition in a scalar (`var`, `t@choice`); every statement that
    names `t` is lowered twice, with `t` bound to each tile, under `if (t@choice)`: exactly the
    work C runs."""

    var_value: Any  # the condition, an Expr
    then: Any  # Binding of the tile when the condition holds
    other: Any  # Binding otherwise
    var: str = ""


@dataclass
class PtrState:
    """Bookkeeping of a GM pointer variable.

    A pointer the function never reassigns, or reassigns only where its declaration runs (same
    loop nest, no run-time condition in between), is rebound while lowering. One reassigned
    deeper (in a loop, a branch, or through a helper called there) keeps its byte offset in a
    mutable scalar (`offset_var`), updated by an Assign at every reassignment."""

    level: tuple[int, int]  # control level of the declaration (see Lowering._control_level)
    offset_var: str | None = None
    # Declared null (`T *p = nullptr;`) and set deeper: its base is the kernel argument every
    # later assignment derives it from (one, checked at each), its offset starts at 0 and
    # `null_var` says whether it still holds null (an assignment sets it to whether the argument
    # is null, as a test of the argument reads it).
    null_var: str | None = None


@dataclass
class Function:
    cursor: Cursor
    name: str


@dataclass
class Binding:
    kind: str  # "value", "type", "tile", "ref", "gm", "ptr", "mutable", "funcs", "lazy_type", "lazy_value", "alias_template"
    value: Any
    extra: Any = None


class Scope:
    def __init__(self, parent: Scope | None = None):
        self.parent = parent
        self.names: dict[str, Binding] = {}

    def lookup(self, name: str) -> Binding | None:
        s: Scope | None = self
        while s is not None:
            b = s.names.get(name)
            if b is not None:
                return b
            s = s.parent
        return None

    def define(self, name: str, binding: Binding) -> None:
        self.names[name] = binding


@dataclass
class Frame:
    """One inlined call: its source file and the call sites above it."""

    src: SourceFile
    via: tuple[ir.SourceRange, ...]
    func_key: str


class LoweringError(Exception):
    def __init__(self, message: str, offset: int | None = None, cursor: Cursor | None = None,
                 src: SourceFile | None = None):
        super().__init__(message)
        self.offset = offset
        self.cursor = cursor
        self.src = src  # the file `offset` counts in (set when the error leaves the frame it was raised in)


def describe(v) -> str:
    if isinstance(v, ir.TileRef):
        return f"tile '{v}'"
    if isinstance(v, ir.TileDecl):
        return f"tile array '{v.cpp_name}'"
    if isinstance(v, ir.GmTensor):
        return f"GlobalTensor '{v.name}'"
    if isinstance(v, Ptr):
        return f"a GM pointer to '{v.record.name}'" if v.record is not None else "a GM pointer"
    if isinstance(v, NullPointer):
        return "a null pointer"
    if isinstance(v, ScalarAddress):
        return "the address of a scalar"
    if isinstance(v, LocalPtr):
        return "an on-chip pointer"
    if isinstance(v, TileConstruction):
        return "a tile value"
    if isinstance(v, RecordValue):
        return f"a '{v.type.name}' struct"
    if isinstance(v, Expr):
        return "a scalar"
    if isinstance(v, list):
        return "a function"
    return type(v).__name__


def elem_bytes(dtype: str) -> int:
    return max(1, int(ir.DTYPE_BYTES.get(dtype, 1)))


def tile_type_of(t: ir.TileDecl) -> ty.TileType:
    return ty.TileType(t.tile_type, t.dtype, t.rows, t.cols, t.blayout, t.valid_rows, t.valid_cols,
                       t.slayout, t.type_text, t.compact, t.conv_static, t.fractal)


# A template argument left to its parameter's default (a defaulted parameter before deduced ones).
USE_DEFAULT = object()


def deduce_type(a):
    if isinstance(a, ir.TileRef):
        return tile_type_of(a.tile)
    if isinstance(a, ir.TileDecl):
        return tile_type_of(a)
    if isinstance(a, ir.GmTensor):
        return ty.GmType(a.dtype, a.shape, a.stride, "ND", a.type_text)
    if isinstance(a, (Ptr, LocalPtr)):
        return ty.ScalarType(a.dtype)
    if isinstance(a, EventObject):
        return ty.EventType(a.src_class, a.dst_class, True, Const(0))
    if isinstance(getattr(a, "type", None), (ty.MPipeType, ty.SyncCustomType)):  # parse.mpipe's objects
        return a.type
    if isinstance(a, Closure):
        return ty.OpaqueType("lambda")  # `class Body` deduced from a lambda argument
    if isinstance(a, Expr):
        # A scalar argument: its C++ type is not tracked; int or float by its value is enough for
        # the value helpers kernels deduce (`CeilDiv(a, b)`).
        return ty.ScalarType("fp32" if isinstance(a.const_value(), float) else "int32")
    return None
