"""Lower a libclang translation unit into the kernel IR.

Starting at the entry function, the lowering walks statements with libclang and parses
the expressions inside them itself (`cparse`), evaluating them in its own scopes:
template parameters are bound to the concrete arguments of each call, constexpr values
fold to constants, loop variables and runtime arguments stay symbolic. Calls to the
user's own functions (kernel templates, `AICORE inline` helpers) are inlined, keeping
each instruction's location inside the helper and the chain of call sites.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Any

from clang.cindex import Cursor, CursorKind

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import (
    Const,
    Expr,
    Var,
    as_expr,
    binop,
    cpp_text,
    select,
    unop,
)
from ptorewrite.analysis.instructions import (
    ALIAS_OPS,
    CONFIG_OPS,
    CROSS_CORE_OPS,
    PipeRuleError,
    lookup,
    pipe_of,
)
from ptorewrite.arch import PIPE_ENUM, ArchProfile
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import types as ty
from ptorewrite.parse.source import SourceFile

NAMESPACES = frozenset({"pto", "std", "AscendC", "pto_auto"})
# Vector-mask setters kernels call before PTO vector code (pto-isa's demos do); no tile data.
MASK_BUILTINS = frozenset({"set_mask_norm", "set_mask_count", "set_vector_mask"})
RUNTIME_BUILTINS = {"block_idx": "block_idx", "block_num": "block_num"}
RUNTIME_CALLS = {"get_block_idx": "block_idx", "get_block_num": "block_num", "GetBlockIdx": "block_idx",
                 "GetBlockNum": "block_num", "get_subblockid": "subblock_idx"}


_GLOBAL_KINDS = frozenset({
    CursorKind.NAMESPACE, CursorKind.UNEXPOSED_DECL, CursorKind.LINKAGE_SPEC, CursorKind.TYPE_ALIAS_DECL,
    CursorKind.TYPEDEF_DECL, CursorKind.TYPE_ALIAS_TEMPLATE_DECL, CursorKind.VAR_DECL, CursorKind.FUNCTION_DECL,
    CursorKind.FUNCTION_TEMPLATE})

# ---------------------------------------------------------------- values and bindings


@dataclass(frozen=True)
class Ptr:
    """A GM pointer: a kernel argument plus a byte offset."""

    param: str
    offset_bytes: Expr
    dtype: str


@dataclass(frozen=True)
class MultiBufferLoop:
    """A `MultiBuffered<N>` object, or the `inner` invoker of a nested Range (dims known)."""

    buffers: int
    dims: tuple[int, ...] | None


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
    def __init__(self, message: str, offset: int | None = None, cursor: Cursor | None = None):
        super().__init__(message)
        self.offset = offset
        self.cursor = cursor


# ---------------------------------------------------------------- the lowering


@dataclass
class Lowering:
    tu: Any
    main: SourceFile
    arch: ArchProfile
    reporter: Reporter
    macros: dict[str, str]  # object-like macros usable in expressions
    function_macros: frozenset[str]
    user_files: set[str]
    files: dict[str, SourceFile] = field(default_factory=dict)
    tiles: list[ir.TileDecl] = field(default_factory=list)
    gm_tensors: list[ir.GmTensor] = field(default_factory=list)
    params: list[ir.Param] = field(default_factory=list)
    runtime_values: list[str] = field(default_factory=list)
    manual: bool = False
    _uid: itertools.count = field(default_factory=lambda: itertools.count(1))
    _names: dict[str, int] = field(default_factory=dict)
    _stack: list[Frame] = field(default_factory=list)
    _loop_vars: list[str] = field(default_factory=list)
    _loop_ids: list[int] = field(default_factory=list)  # one id per loop instance (names repeat)
    _loop_serial: itertools.count = field(default_factory=lambda: itertools.count(1))
    # Enclosing MultiBuffered bodies: (buffers, lane expression, lane source text `ctx.bufferId`).
    _lanes: list[tuple[int, Expr, str]] = field(default_factory=list)
    _node_ends: dict = field(default_factory=dict)  # parsed node -> end offset (see cparse.Parser.ends)
    # Enclosing loops: (IR var, start, step, constant trip count or None, C++ spelling, call depth).
    _loops: list[tuple[str, Expr, Expr, int | None, str, int]] = field(default_factory=list)

    def __post_init__(self):
        self.files[self.main.path] = self.main
        self.globals = Scope()
        self._define_builtins(self.globals)
        self._collect_globals(self.tu.cursor, self.globals)

    # -- setup

    def _define_builtins(self, scope: Scope) -> None:
        for name, pipe in PIPE_ENUM.items():
            scope.define(name, Binding("value", Const(pipe)))
        for i in range(8):
            scope.define(f"EVENT_ID{i}", Binding("value", Const(i)))
        for name, var in RUNTIME_BUILTINS.items():
            scope.define(name, Binding("value", Var(var)))

    def _collect_globals(self, cursor: Cursor, scope: Scope) -> None:
        """Namespace-scope aliases, constexpr values and function definitions of user files."""
        for c in cursor.get_children():
            k = c.kind
            if k not in _GLOBAL_KINDS:
                continue  # before the file check: asking libclang for a cursor's file is slow
            if c.location.file is None or c.location.file.name not in self.user_files:
                continue
            if k in (CursorKind.NAMESPACE, CursorKind.UNEXPOSED_DECL, CursorKind.LINKAGE_SPEC):
                self._collect_globals(c, scope)
            elif k in (CursorKind.TYPE_ALIAS_DECL, CursorKind.TYPEDEF_DECL):
                scope.define(c.spelling, Binding("lazy_type", c))
            elif k == CursorKind.TYPE_ALIAS_TEMPLATE_DECL:
                scope.define(c.spelling, Binding("alias_template", c))
            elif k == CursorKind.VAR_DECL:
                scope.define(c.spelling, Binding("lazy_value", c))
            elif k in (CursorKind.FUNCTION_DECL, CursorKind.FUNCTION_TEMPLATE) and \
                    any(ch.kind == CursorKind.COMPOUND_STMT for ch in c.get_children()):
                b = scope.names.get(c.spelling)
                if b is None or b.kind != "funcs":
                    b = Binding("funcs", [])
                    scope.define(c.spelling, b)
                b.value.append(Function(c, c.spelling))

    # -- source helpers

    def file_of(self, cursor: Cursor) -> SourceFile:
        name = cursor.location.file.name if cursor.location.file else self.main.path
        if name not in self.files:
            self.files[name] = SourceFile.read(name)
        return self.files[name]

    @property
    def src(self) -> SourceFile:
        return self._stack[-1].src if self._stack else self.main

    @property
    def via(self) -> tuple[ir.SourceRange, ...]:
        return self._stack[-1].via if self._stack else ()

    def text_of(self, cursor: Cursor) -> tuple[str, int]:
        e = cursor.extent
        src = self.file_of(cursor)
        return src.text[e.start.offset:e.end.offset], e.start.offset

    def range_of(self, cursor: Cursor, include_semicolon: bool = False) -> ir.SourceRange:
        src = self.file_of(cursor)
        start, end = cursor.extent.start.offset, cursor.extent.end.offset
        if include_semicolon:
            rest = src.text[end:end + 64]
            stripped = rest.lstrip(" \t")
            if stripped.startswith(";"):
                end += len(rest) - len(stripped) + 1
        return src.range(start, end)

    def error(self, message: str, offset: int | None = None, cursor: Cursor | None = None) -> LoweringError:
        return LoweringError(message, offset, cursor)

    def located(self, err: LoweringError | cp.ParseError) -> PtoError:
        if isinstance(err, cp.ParseError):
            return PtoError(f"cannot parse expression: {err}", self.src.range(err.offset, err.offset))
        if err.cursor is not None:
            return PtoError(str(err), self.range_of(err.cursor))
        if err.offset is not None:
            return PtoError(str(err), self.src.range(err.offset, err.offset))
        return PtoError(str(err))

    # -- parsing with scope-aware predicates

    def parse(self, text: str, offset: int, scope: Scope) -> cp.Node:
        p = self.parser(text, offset, scope)
        node = p.expression()
        if not p.done():
            t = p.peek()
            raise cp.ParseError(f"unexpected {t.text!r}", t.offset)
        return node

    def parser(self, text: str, offset: int, scope: Scope) -> cp.Parser:
        tokens = self._expand_macros(cp.tokenize(text, offset))
        return cp.Parser(tokens, is_template=lambda n: self._is_template(n, scope),
                         is_type=lambda n: self._is_type(n, scope), end_offset=offset + len(text),
                         ends=self._node_ends)

    def _expand_macros(self, tokens: list[cp.Token], depth: int = 0) -> list[cp.Token]:
        out: list[cp.Token] = []
        for t in tokens:
            if t.kind == "id" and t.text in self.macros and depth < 8:
                body = cp.tokenize(self.macros[t.text], 0)
                # Expanded tokens take the location of the macro use.
                out += self._expand_macros([cp.Token(b.kind, b.text, t.offset, t.end) for b in body], depth + 1)
            else:
                out.append(t)
        return out

    def _is_template(self, name: str, scope: Scope) -> bool:
        if name in ty.PTO_TYPE_TEMPLATES or name in ("TASSIGN", "loop", "NestedLoopInvoker", "is_same_v"):
            return True
        if lookup(name, self.arch) is not None or name in ALIAS_OPS or name in CROSS_CORE_OPS:
            return True
        b = scope.lookup(name)
        if b is None:
            return False
        if b.kind == "alias_template":
            return True
        if b.kind == "funcs":
            return any(f.cursor.kind == CursorKind.FUNCTION_TEMPLATE for f in b.value)
        return False

    def _is_type(self, name: str, scope: Scope) -> bool:
        if name in ty.DTYPE_NAMES or name in ty.PTO_TYPE_TEMPLATES:
            return True
        b = scope.lookup(name)
        return b is not None and b.kind in ("type", "lazy_type", "alias_template")

    # -- evaluation

    def eval(self, node: cp.Node, scope: Scope) -> Any:
        m = getattr(self, "_eval_" + type(node).__name__)
        return m(node, scope)

    def scalar(self, node: cp.Node, scope: Scope) -> Expr:
        v = self.eval(node, scope)
        if isinstance(v, Expr):
            return v
        raise self.error(f"expected a scalar value, found {describe(v)}", node.offset)

    def _eval_Num(self, node: cp.Num, scope):
        return Const(node.value)

    def _eval_StringLit(self, node, scope):
        raise self.error("string literals are not supported here", node.offset)

    def _eval_InitList(self, node: cp.InitList, scope):
        if len(node.items) == 1:
            return self.eval(node.items[0], scope)
        raise self.error("brace lists are not supported here", node.offset)

    def _eval_Name(self, node: cp.Name, scope: Scope):
        parts = [p for p in node.parts if p not in NAMESPACES] or list(node.parts[-1:])
        if len(parts) == 1:
            name = parts[0]
            if name == "is_same_v" and node.targs is not None and len(node.targs) == 2:
                return self._is_same(node.targs, scope)
            if node.targs is not None or name in ty.PTO_TYPE_TEMPLATES:
                return self.resolve_type(cp.TypeId(node.offset, node), scope)
            b = scope.lookup(name)
            if b is None:
                if name in ty.DTYPE_NAMES:
                    return ty.ScalarType(ty.DTYPE_NAMES[name])
                raise self.error(f"unknown name '{name}'", node.offset)
            return self.binding_value(b, name, node.offset, scope)
        # Qualified: an enum member (`TileType::Vec`) or a static member of a type (`TileT::Rows`).
        head = scope.lookup(parts[0])
        if head is not None and head.kind in ("type", "lazy_type", "alias_template") or parts[0] in ty.PTO_TYPE_TEMPLATES:
            t = self.resolve_type(cp.TypeId(node.offset, cp.Name(node.offset, (parts[0],),
                                                                 node.targs if len(parts) == 1 else None)), scope)
            return self.member_of_type(t, parts[1], node.offset)
        return Const("::".join(parts))

    def _is_same(self, targs, scope: Scope) -> Const:
        """`std::is_same_v<A, B>` (template dispatch on an element type)."""
        a, b = (self.eval(t, scope) for t in targs)
        return Const(int(a == b))

    def binding_value(self, b: Binding, name: str, offset: int, scope: Scope):
        k = b.kind
        if k == "value":
            return b.value
        if k == "mutable":
            return Var(b.value)
        if k == "type":
            return b.value
        if k == "lazy_type":
            b.kind, b.value = "type", self._resolve_alias_cursor(b.value)
            return b.value
        if k == "lazy_value":
            cur = b.value
            b.kind, b.value = "value", None
            b.value = self._global_value(cur)
            return b.value
        if k == "ptr" and b.value is None:
            raise self.error(f"GM pointer '{name}' is used before it is set", offset)
        if k == "gm" and isinstance(b.extra, GmState):
            if b.extra.repointed_at is not None:
                raise self.error(f"GlobalTensor '{name}' is re-pointed by the TASSIGN at line "
                                 f"{b.extra.repointed_at.line} inside a loop or condition; it cannot be used "
                                 "outside that block", offset)
            b.extra.used_in.add(tuple(self._loop_ids))
        if k in ("tile", "ref", "gm", "ptr", "multibuf", "mbctx"):
            return b.value
        if k == "funcs":
            return b.value
        raise self.error(f"'{name}' cannot be used here", offset)

    def member_of_type(self, t, member: str, offset: int):
        if isinstance(t, ty.TileType):
            members = {
                "Rows": t.rows, "Cols": t.cols, "RowStride": t.row_stride, "ColStride": t.col_stride,
                "ValidRow": t.valid_rows if t.valid_rows is not None else Const(-1),
                "ValidCol": t.valid_cols if t.valid_cols is not None else Const(-1),
                "Numel": t.rows * t.cols,
            }
            if member in members:
                return as_expr(members[member])
            if member == "DType":
                return ty.ScalarType(t.dtype)
            if member == "Loc":
                return Const("TileType::" + t.tile_type)
        if isinstance(t, ty.GmType) and member == "DType":
            return ty.ScalarType(t.dtype)
        raise self.error(f"member '{member}' of this type is not supported", offset)

    def _eval_Member(self, node: cp.Member, scope):
        base = self.eval(node.base, scope)
        if isinstance(base, LaneContext):
            if node.name == "iter":
                return base.iter
            if node.name == "bufferId":
                return base.buffer_id
            if node.name == "phase":
                return base.phase
            raise self.error(f"a MultiBuffered context has no member '{node.name}'", node.offset)
        if isinstance(base, ir.TileRef):
            tt = tile_type_of(base.tile)
            return self.member_of_type(tt, node.name, node.offset)
        raise self.error(f"member access '.{node.name}' is not supported here", node.offset)

    def _eval_Binary(self, node: cp.Binary, scope):
        if node.op in cp.ASSIGN_OPS:
            raise self.error("assignment inside an expression is not supported", node.offset)
        lhs = self.eval(node.lhs, scope)
        rhs = self.eval(node.rhs, scope)
        if isinstance(lhs, Ptr) and isinstance(rhs, Expr) and node.op in "+-":
            scale = elem_bytes(lhs.dtype)
            d = binop("*", rhs, Const(scale))
            return replace(lhs, offset_bytes=binop(node.op, lhs.offset_bytes, d))
        if isinstance(rhs, Ptr) and isinstance(lhs, Expr) and node.op == "+":
            return replace(rhs, offset_bytes=binop("+", rhs.offset_bytes, binop("*", lhs, Const(elem_bytes(rhs.dtype)))))
        if isinstance(lhs, Expr) and isinstance(rhs, Expr):
            return binop(node.op, lhs, rhs)
        if node.op in ("==", "!=") and isinstance(lhs, ty.ScalarType) and isinstance(rhs, ty.ScalarType):
            return Const((lhs == rhs) == (node.op == "=="))
        raise self.error(f"operator '{node.op}' on {describe(lhs)} and {describe(rhs)} is not supported", node.offset)

    def _eval_Unary(self, node: cp.Unary, scope):
        if node.op in ("++", "--"):
            raise self.error("increment inside an expression is not supported", node.offset)
        v = self.eval(node.operand, scope)
        if node.op == "+":
            return v
        if node.op in ("&", "*"):
            if isinstance(v, (ir.TileRef, ir.TileDecl, Ptr, ir.GmTensor)):
                return v
            raise self.error(f"operator '{node.op}' is not supported here", node.offset)
        if isinstance(v, Expr):
            return unop(node.op, v)
        raise self.error(f"operator '{node.op}' on {describe(v)} is not supported", node.offset)

    def _eval_Conditional(self, node: cp.Conditional, scope):
        c = self.scalar(node.cond, scope)
        if isinstance(c, Const):
            return self.eval(node.then if c.value else node.other, scope)
        return select(c, self.scalar(node.then, scope), self.scalar(node.other, scope))

    def _eval_Cast(self, node: cp.Cast, scope):
        v = self.eval(node.operand, scope)
        t = self.resolve_type(node.type, scope)
        if isinstance(v, Ptr) and isinstance(t, ty.PointerType):
            return replace(v, dtype=t.dtype)
        if isinstance(v, Expr) and isinstance(t, ty.ScalarType):
            c = v.const_value()
            if isinstance(c, float) and not t.dtype.startswith("fp") and t.dtype != "bf16":
                return Const(int(c))
            return v
        if isinstance(v, Expr) and isinstance(t, ty.PointerType):
            raise self.error("integer-to-pointer casts are not supported", node.offset)
        return v

    def _eval_SizeOf(self, node: cp.SizeOf, scope):
        if isinstance(node.operand, cp.TypeId):
            t = self.resolve_type(node.operand, scope)
        else:
            t = self.eval(node.operand, scope)
        if isinstance(t, ty.ScalarType):
            return Const(elem_bytes(t.dtype))
        if isinstance(t, ty.PointerType):
            return Const(8)
        raise self.error("sizeof of this operand is not supported", node.offset)

    def _eval_Index(self, node: cp.Index, scope):
        base = self.eval(node.base, scope)
        idx = self.scalar(node.index, scope)
        if isinstance(base, ir.TileDecl):
            if base.count is None:
                raise self.error(f"'{base.cpp_name}' is not a tile array", node.offset)
            c = idx.const_value()
            if c is not None and not 0 <= c < base.count:
                raise self.error(f"index {c} is out of range for '{base.cpp_name}[{base.count}]'", node.offset)
            return ir.TileRef(base, idx)
        raise self.error(f"subscript of {describe(base)} is not supported", node.offset)

    def _eval_Lambda(self, node, scope):
        return node

    def _eval_TypeId(self, node: cp.TypeId, scope):
        return self.resolve_type(node, scope)

    def _eval_Call(self, node: cp.Call, scope):
        callee = node.callee
        if isinstance(callee, cp.Name):
            name = callee.last
            if name in RUNTIME_CALLS and not node.args:
                var = RUNTIME_CALLS[name]
                return Var(var)
            if name in ("min", "max") and len(node.args) == 2:
                a, b = (self.scalar(x, scope) for x in node.args)
                return select(binop("<" if name == "min" else ">", a, b), a, b)
            target = self.eval(callee, scope) if (scope.lookup(name) or callee.targs is not None
                                                  or name in ty.PTO_TYPE_TEMPLATES) else None
            if isinstance(target, list):  # user functions: constexpr helpers that return a value
                return self.call_value_function(target, callee, node, scope)
            if isinstance(target, (ty.GmType, ty.DimsType, ty.ScalarType, ty.PointerType)):
                return self.construct(target, list(node.args), scope, node.offset, name)
        raise self.error("this call is not supported inside an expression", node.offset)

    def construct(self, t, args: list[cp.Node], scope: Scope, offset: int, text: str):
        """A temporary built by a functional cast, e.g. `GmT(a + off)` or `float(x)`."""
        if isinstance(t, ty.GmType):
            return self.make_gm_tensor(t, f"{text}(...)", args, scope, offset, None)
        if isinstance(t, ty.DimsType):
            return self.fill_dims(t, args, scope, offset)
        if isinstance(t, ty.ScalarType) and len(args) == 1:
            return self.scalar(args[0], scope)
        raise self.error("unsupported construction", offset)

    def fill_dims(self, t: ty.DimsType, args: list[cp.Node], scope: Scope, offset: int) -> ty.DimsType:
        """`Shape<1, 1, 1, -1, -1>(rows, cols)`: constructor values fill the dynamic dims in order."""
        if not args:
            return t
        values = [self.scalar(a, scope) for a in args]
        dynamic = [i for i, d in enumerate(t.dims) if d.const_value() == ty.DYNAMIC]
        if len(values) != len(dynamic):
            raise self.error(f"{len(values)} values for a {t.kind} with {len(dynamic)} dynamic dimensions", offset)
        dims = list(t.dims)
        for i, v in zip(dynamic, values):
            dims[i] = v
        return replace(t, dims=tuple(dims))

    # -- types

    def resolve_type(self, node: cp.TypeId, scope: Scope):
        base = node.base
        parts = [p for p in base.parts if p not in NAMESPACES] or list(base.parts[-1:])
        name = parts[-1]
        if node.pointer:
            inner = self.resolve_type(replace(node, pointer=0, reference=False), scope)
            if isinstance(inner, ty.ScalarType):
                return ty.PointerType(inner.dtype)
            raise self.error("pointers to this type are not supported", node.offset)
        if name == "NestedLoopInvoker":
            # `MultiBuffered<N>::NestedLoopInvoker<Range<M>>` only types a lambda's `inner` parameter.
            return ty.OpaqueType(base.text)
        if len(parts) > 1:
            head = self.resolve_type(cp.TypeId(node.offset, cp.Name(node.offset, (parts[0],))), scope)
            v = self.member_of_type(head, name, node.offset)
            if isinstance(v, (ty.ScalarType,)):
                return v
            raise self.error(f"'{base.text}' is not a type", node.offset)
        b = scope.lookup(name)
        if b is not None:
            if b.kind == "alias_template":
                return self._instantiate_alias_template(b.value, base, scope)
            if b.kind in ("type", "lazy_type"):
                return self.binding_value(b, name, node.offset, scope)
        if name in ty.DTYPE_NAMES:
            return ty.ScalarType(ty.DTYPE_NAMES[name])
        if name in ty.PTO_TYPE_TEMPLATES:
            args = [self.eval(a, scope) for a in (base.targs or ())]
            text = self.node_text(node)
            try:
                if name == "Tile":
                    return ty.make_tile(args, text)
                if name in ("Shape", "Stride"):
                    return ty.make_dims(name.lower(), args)
                if name == "TileShape2D":
                    return ty.make_shape2d(args)
                if name == "BaseShape2D":
                    return ty.make_stride2d(args)
                if name == "GlobalTensor":
                    return ty.make_global_tensor(args, text)
                if name == "MultiBuffered":
                    return ty.MultiBufferType(int(args[0].const_value()))
                if name == "Range":
                    return ty.RangeType(tuple(int(a.const_value()) for a in args))
                return ty.make_alias_tile(name, args, self.arch.name, text)
            except TypeError as e:
                raise self.error(f"{name}<...>: {e}", node.offset) from None
        if name in ("void",):
            return ty.OpaqueType(name)
        raise self.error(f"unknown type '{base.text}'", node.offset)

    def node_text(self, node: cp.Node) -> str:
        """The source spelling of a parsed argument, name or type-id (whitespace collapsed)."""
        end = self._node_ends.get(node)
        if end is None and isinstance(node, cp.TypeId):
            end = self._node_ends.get(node.base)
        if end is None:
            return ""
        return " ".join(self.src.text[node.offset:end].split())

    def _resolve_alias_cursor(self, cursor: Cursor, scope: Scope | None = None):
        """`using X = T;` or `typedef T X;` at namespace scope or in a function."""
        scope = scope or self.globals
        src = self.file_of(cursor)
        text, off = src.text[cursor.extent.start.offset:cursor.extent.end.offset], cursor.extent.start.offset
        if cursor.kind == CursorKind.TYPE_ALIAS_DECL:
            eq = text.index("=")
            type_text, type_off = text[eq + 1:], off + eq + 1
        else:
            name_at = cursor.location.offset - off
            type_text, type_off = text[len("typedef"):name_at], off + len("typedef")
        self._stack.append(Frame(src, self.via, "alias"))
        try:
            p = self.parser(type_text, type_off, scope)
            return self.resolve_type(p.type_id(), scope)
        finally:
            self._stack.pop()

    def _instantiate_alias_template(self, cursor: Cursor, base: cp.Name, scope: Scope):
        src = self.file_of(cursor)
        params = template_params(cursor, src)
        args = [self.eval(a, scope) for a in (base.targs or ())]
        inner = Scope(self.globals)
        self._stack.append(Frame(src, self.via, "alias"))
        try:
            self.bind_template_params(params, args, inner, src)
            alias = next(c for c in cursor.get_children() if c.kind == CursorKind.TYPE_ALIAS_DECL)
            text = src.text[alias.extent.start.offset:alias.extent.end.offset]
            eq = text.index("=")
            p = self.parser(text[eq + 1:], alias.extent.start.offset + eq + 1, inner)
            return self.resolve_type(p.type_id(), inner)
        finally:
            self._stack.pop()

    def bind_template_params(self, params, args, scope: Scope, src: SourceFile) -> None:
        for i, (kind, pname, default) in enumerate(params):
            if i < len(args):
                v = args[i]
            elif default is not None:
                node = self.parse(default[0], default[1], scope)
                v = self.eval(node, scope)
            else:
                raise self.error(f"template parameter '{pname}' has no argument")
            if kind == "type":
                scope.define(pname, Binding("type", v))
            else:
                scope.define(pname, Binding("value", as_expr(v) if not isinstance(v, (ty.ScalarType,)) else v))

    def _global_value(self, cursor: Cursor):
        src = self.file_of(cursor)
        self._stack.append(Frame(src, self.via, "global"))
        try:
            decl = self.parse_var_decl(cursor, self.globals)
            if decl.init is None:
                raise self.error(f"'{cursor.spelling}' has no initializer", cursor=cursor)
            return self.eval(decl.init[0], self.globals)
        finally:
            self._stack.pop()

    # -- statements

    def lower_function_body(self, fn: Cursor, scope: Scope) -> list[ir.Stmt]:
        body = next((c for c in fn.get_children() if c.kind == CursorKind.COMPOUND_STMT), None)
        if body is None:
            raise self.error(f"'{fn.spelling}' has no body", cursor=fn)
        return self.lower_compound(body, scope)

    def lower_compound(self, cursor: Cursor, scope: Scope) -> list[ir.Stmt]:
        inner = Scope(scope)
        out: list[ir.Stmt] = []
        children = list(cursor.get_children())
        self._lower_list(children, inner, out)
        return out

    def _lower_list(self, children: list[Cursor], scope: Scope, out: list[ir.Stmt]) -> None:
        for i, c in enumerate(children):
            # `if (cond) return;` guards the rest of the block: lower it as `if (!cond) { rest }`.
            if c.kind == CursorKind.IF_STMT and self._is_guard_return(c):
                cond = self.scalar(self.parse(*self.text_of(next(iter(c.get_children()))), scope), scope)
                rest: list[ir.Stmt] = []
                self._lower_list(children[i + 1:], scope, rest)
                if isinstance(cond, Const):
                    if not cond.value:
                        out.extend(rest)
                    return
                out.append(ir.If(unop("!", cond), ir.Block(rest, uid=next(self._uid)), None, self.range_of(c)))
                return
            self.lower_stmt(c, scope, out)

    def _is_guard_return(self, c: Cursor) -> bool:
        kids = list(c.get_children())
        if len(kids) != 2:
            return False
        then = kids[1]
        if then.kind == CursorKind.RETURN_STMT:
            return True
        if then.kind == CursorKind.COMPOUND_STMT:
            body = list(then.get_children())
            return len(body) == 1 and body[0].kind == CursorKind.RETURN_STMT
        return False

    def lower_stmt(self, c: Cursor, scope: Scope, out: list[ir.Stmt]) -> None:
        k = c.kind
        try:
            if k == CursorKind.COMPOUND_STMT:
                out.append(ir.Block(self.lower_compound(c, scope), self.range_of(c), uid=next(self._uid)))
            elif k == CursorKind.DECL_STMT:
                decls = list(c.get_children())
                for d in decls:
                    self.lower_decl(d, scope, out, c if len(decls) > 1 else None)
            elif k == CursorKind.FOR_STMT:
                out.append(self.lower_for(c, scope))
            elif k == CursorKind.IF_STMT:
                self.lower_if(c, scope, out)
            elif k in (CursorKind.NULL_STMT,):
                pass
            elif k == CursorKind.UNEXPOSED_STMT and self._attributed_stmt(c) is not None:
                # `#pragma unroll` / `[[...]]` before a statement: only a hint, lower the statement.
                self.lower_stmt(self._attributed_stmt(c), scope, out)
            elif k == CursorKind.RETURN_STMT:
                if list(c.get_children()):
                    raise self.error("returning a value from a kernel helper is not supported", cursor=c)
            elif k in (CursorKind.WHILE_STMT, CursorKind.DO_STMT):
                raise self.error("while/do loops are not supported; write a counted for loop", cursor=c)
            elif k in (CursorKind.GOTO_STMT, CursorKind.LABEL_STMT, CursorKind.INDIRECT_GOTO_STMT):
                raise self.error("goto is not supported", cursor=c)
            elif k in (CursorKind.BREAK_STMT, CursorKind.CONTINUE_STMT):
                raise self.error(f"'{k.name.split('_')[0].lower()}' is not supported; loops must be counted", cursor=c)
            elif k in (CursorKind.SWITCH_STMT,):
                raise self.error("switch is not supported; use if/else", cursor=c)
            elif k in (CursorKind.STATIC_ASSERT, CursorKind.TYPE_ALIAS_DECL, CursorKind.TYPEDEF_DECL):
                self.lower_decl(c, scope, out)
            else:
                self.lower_expr_stmt(c, scope, out)
        except cp.ParseError as e:
            raise self.located(e) from None
        except LoweringError as e:
            if e.cursor is None and e.offset is None:
                e.cursor = c
            raise self.located(e) from None

    def _attributed_stmt(self, c: Cursor) -> Cursor | None:
        kids = list(c.get_children())
        if len(kids) == 1 and kids[0].kind.is_statement() and \
                self.text_of(c)[0].lstrip().startswith(("#pragma", "[[", "_Pragma")):
            return kids[0]
        return None

    # -- declarations

    @dataclass
    class VarDecl:
        name: str
        type_node: cp.TypeId | None
        array: cp.Node | None
        init: list[cp.Node] | None
        init_style: str  # "=", "(", "{", ""
        is_const: bool
        name_offset: int

    def parse_var_decl(self, cursor: Cursor, scope: Scope, group: Cursor | None = None) -> Lowering.VarDecl:
        """`group`: the declaration statement when it declares several variables (`T a, b[2];`)."""
        src = self.file_of(cursor)
        start, end = cursor.extent.start.offset, cursor.extent.end.offset
        name = cursor.spelling
        name_at = cursor.location.offset
        type_text = src.text[start:name_at]
        first = next(group.get_children()) if group is not None else cursor
        if first != cursor:
            # A later declarator's extent starts at its own `*`/name: take the type from the first one.
            base = src.text[first.extent.start.offset:first.location.offset].rstrip(" \t*&")
            type_text, start = base + " " + type_text, first.extent.start.offset
        p = self.parser(type_text, start, scope)
        quals = set()
        while p.peek() is not None and p.peek().text in cp.QUALIFIER_WORDS:
            quals.add(p.next().text)
        type_node = None
        if not (p.peek() and p.peek().text == "auto"):
            p.pos = 0
            type_node = p.type_id()
        rest_off = name_at + len(name)
        rest = src.text[rest_off:end]
        q = self.parser(rest, rest_off, scope)
        array = None
        if q.at("["):
            q.next()
            array = q.expression()
            q.expect("]")
        init = None
        style = ""
        if q.at("="):
            q.next()
            style = "="
            init = [q.expression()]
        elif q.at("(") or q.at("{"):
            close = ")" if q.at("(") else "}"
            style = q.next().text
            init = q.arguments(close)
        is_const = bool({"constexpr", "const"} & (quals | set(type_node.qualifiers if type_node else ())))
        return Lowering.VarDecl(name, type_node, array, init, style, is_const, name_at)

    def lower_decl(self, d: Cursor, scope: Scope, out: list[ir.Stmt], group: Cursor | None = None) -> None:
        if d.kind in (CursorKind.TYPE_ALIAS_DECL, CursorKind.TYPEDEF_DECL):
            scope.define(d.spelling, Binding("type", self._resolve_alias_cursor(d, scope)))
            return
        if d.kind == CursorKind.STATIC_ASSERT:
            return
        if d.kind != CursorKind.VAR_DECL:
            raise self.error(f"unsupported declaration ({d.kind.name.lower()})", cursor=d)
        decl = self.parse_var_decl(d, scope, group)
        t = self.resolve_type(decl.type_node, scope) if decl.type_node else None
        if isinstance(t, ty.TileType):
            self.declare_tile(d, decl, t, scope, group)
            return
        if isinstance(t, ty.GmType):
            g = self.make_gm_tensor(t, self.node_text(decl.type_node), decl.init or [], scope,
                                    decl.name_offset, decl.name, decl_cursor=d)
            scope.define(decl.name, Binding("gm", g, GmState(self._control_level())))
            return
        if isinstance(t, ty.DimsType):
            if decl.init_style == "=":  # `Shape<...> s = Shape<...>(rows, cols);`
                dims = self.eval(decl.init[0], scope)
                if not isinstance(dims, ty.DimsType):
                    raise self.error(f"expected a {t.kind} value", decl.init[0].offset)
            else:
                dims = self.fill_dims(t, decl.init or [], scope, decl.name_offset)
            scope.define(decl.name, Binding("value", dims))
            return
        if isinstance(t, ty.MultiBufferType):
            scope.define(decl.name, Binding("multibuf", MultiBufferLoop(t.buffers, None)))
            return
        if decl.array is not None:
            raise self.error("arrays of scalars are not supported", decl.name_offset)
        if isinstance(t, ty.PointerType) and decl.init and isinstance(decl.init[0], cp.Name) \
                and decl.init[0].parts == ("nullptr",):
            # Set later, e.g. through a `T *&` out-parameter (pto-isa's gemm InitGMOffsets).
            scope.define(decl.name, Binding("ptr", None, self._control_level()))
            return
        value = self.eval(decl.init[0], scope) if decl.init else None
        if isinstance(t, ty.PointerType) or isinstance(value, Ptr):
            if not isinstance(value, Ptr):
                raise self.error("GM pointers must be derived from a kernel argument", decl.name_offset)
            if isinstance(t, ty.PointerType) and t.dtype != value.dtype:
                value = replace(value, dtype=t.dtype)
            scope.define(decl.name, Binding("ptr", value, self._control_level()))
            return
        if isinstance(value, ir.GmTensor):
            scope.define(decl.name, Binding("gm", value))
            return
        if isinstance(value, (ir.TileRef, ir.TileDecl)):
            scope.define(decl.name, Binding("ref" if isinstance(value, ir.TileRef) else "tile", value))
            return
        if value is None:
            value = Const(0)
        if not isinstance(value, Expr):
            raise self.error(f"unsupported initializer ({describe(value)})", decl.name_offset)
        if decl.is_const or not self._is_assigned_later(d):
            scope.define(decl.name, Binding("value", value))
        else:
            var = self.unique_name(decl.name)
            scope.define(decl.name, Binding("mutable", var))
            out.append(ir.Assign(var, value, self.range_of(d, include_semicolon=True)))

    def _is_assigned_later(self, decl: Cursor) -> bool:
        """A local scalar is mutable if any statement in its function assigns to it."""
        fn = decl.semantic_parent
        while fn is not None and fn.kind not in (CursorKind.FUNCTION_DECL, CursorKind.FUNCTION_TEMPLATE,
                                                 CursorKind.LAMBDA_EXPR, CursorKind.CXX_METHOD):
            fn = fn.semantic_parent
        if fn is None:
            return False
        target = decl.hash
        for c in fn.walk_preorder():
            if c.kind in (CursorKind.BINARY_OPERATOR, CursorKind.COMPOUND_ASSIGNMENT_OPERATOR,
                          CursorKind.UNARY_OPERATOR):
                kids = list(c.get_children())
                if kids and kids[0].kind == CursorKind.DECL_REF_EXPR and kids[0].referenced is not None \
                        and kids[0].referenced.hash == target:
                    text, _ = self.text_of(c)
                    after = text[len(kids[0].spelling):].lstrip()
                    if c.kind == CursorKind.UNARY_OPERATOR and ("++" in text or "--" in text):
                        return True
                    if c.kind != CursorKind.UNARY_OPERATOR and after[:1] in "=+-*/%&|^<>" and not after.startswith("=="):
                        return True
        return False

    def unique_name(self, base: str) -> str:
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        return base if n == 0 else f"{base}#{n + 1}"

    def declare_tile(self, d: Cursor, decl: Lowering.VarDecl, t: ty.TileType, scope: Scope,
                     group: Cursor | None = None) -> None:
        count = None
        if decl.array is not None:
            c = self.scalar(decl.array, scope).const_value()
            if not isinstance(c, int) or c <= 0:
                raise self.error("tile array length must be a positive compile-time constant", decl.name_offset)
            count = c
        vr, vc = t.valid_rows, t.valid_cols
        if decl.init and decl.init_style in ("(", "{"):
            dyn = [self.scalar(a, scope) for a in decl.init]
            if len(dyn) >= 1 and vr is None:
                vr = dyn[0]
            if len(dyn) >= 2 and vc is None:
                vc = dyn[1 if t.valid_rows is None else 0]
        loc = self.range_of(group or d, include_semicolon=True)
        tile = ir.TileDecl(
            name=self.unique_name(decl.name), tile_type=t.tile_type, dtype=t.dtype, rows=t.rows,
            cols=t.cols, valid_rows=vr, valid_cols=vc, blayout=t.blayout, slayout=t.slayout,
            count=count, loc=loc, type_text=t.text, cpp_name=decl.name, scope=self._scope_uid,
        )
        if t.tile_type not in ("Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling"):
            raise self.error(f"tiles of type {t.tile_type} are not supported in version 1", decl.name_offset)
        self.tiles.append(tile)
        if self._lanes and count is None:
            # The AUTO compiler gives each lane of a MultiBuffered loop its own copy.
            nbuf, slot, lane_text = self._lanes[-1]
            tile.count, tile.per_lane, tile.lane_text = nbuf, True, lane_text
            tile.lane_constexpr = lane_text.endswith(".bufferId")
            scope.define(decl.name, Binding("ref", ir.TileRef(tile, slot)))
            return
        scope.define(decl.name, Binding("tile", tile))

    _scope_uid: int = 0
    _cond_depth: int = 0  # enclosing if/else with a run-time condition

    def _control_level(self) -> tuple[int, int]:
        return len(self._loop_vars), self._cond_depth

    def make_gm_tensor(self, t: ty.GmType, text: str, init: list[cp.Node], scope: Scope, offset: int,
                       name: str | None, decl_cursor: Cursor | None = None) -> ir.GmTensor:
        if not init:
            raise self.error("a GlobalTensor needs a GM pointer", offset)
        ptr = self.eval(init[0], scope)
        if isinstance(ptr, ir.GmTensor):
            return ptr
        if not isinstance(ptr, Ptr):
            raise self.error("a GlobalTensor must point into a kernel argument", init[0].offset)
        shape, stride = list(t.shape), list(t.stride)
        dyn = [self.eval(a, scope) for a in init[1:]]
        for v in dyn:
            if isinstance(v, ty.DimsType):
                target = shape if v.kind == "shape" else stride
                for i, dv in enumerate(v.dims):
                    if dv.const_value() != ty.DYNAMIC:
                        target[i] = dv
        loc = self.range_of(decl_cursor, include_semicolon=True) if decl_cursor else self.src.range(offset, offset)
        g = ir.GmTensor(
            name=self.unique_name(name or f"{ptr.param}@gm"), param=ptr.param, dtype=t.dtype,
            shape=tuple(shape), stride=tuple(stride), offset_bytes=ptr.offset_bytes, loc=loc, type_text=text,
        )
        self.gm_tensors.append(g)
        return g

    # -- control flow

    def lower_for(self, c: Cursor, scope: Scope) -> ir.For:
        text, off = self.text_of(c)
        lp = text.index("(")
        header_end = matching_paren(text, lp)
        header = text[lp + 1:header_end]
        pieces = split_top_level(header, ";")
        if len(pieces) != 3:
            raise self.error("range-based for loops are not supported", cursor=c)
        (init_t, init_o), (cond_t, cond_o), (inc_t, inc_o) = [(s, off + lp + 1 + o) for s, o in pieces]
        inner = Scope(scope)
        var, start = self._loop_init(init_t, init_o, inner, c)
        ivar = self.unique_loop_var(var)
        inner.define(var, Binding("value", Var(ivar)))
        cond = self.parse(cond_t, cond_o, inner)
        stop, inclusive, descending = self._loop_cond(cond, var, inner, c)
        step = self._loop_step(self.parse(inc_t, inc_o, inner), var, inner, c)
        sv = step.const_value()
        if sv is not None and (sv > 0) == descending:
            raise self.error("loop step goes away from the bound; the loop would not terminate", cursor=c)
        body_cursor = list(c.get_children())[-1]
        trips = ir.For(ivar, start, stop, step, ir.Block([]), self.range_of(c), inclusive=inclusive).trip_count()
        self._loop_vars.append(ivar)
        self._loop_ids.append(next(self._loop_serial))
        self._loops.append((ivar, start, step, trips, var, len(self._stack)))
        try:
            body = self._lower_body(body_cursor, inner)
        finally:
            self._loop_vars.pop()
            self._loop_ids.pop()
            self._loops.pop()
        return ir.For(ivar, start, stop, step, body, self.range_of(c), inclusive=inclusive, cpp_var=var)

    def unique_loop_var(self, name: str) -> str:
        if name not in self._loop_vars:
            return name
        i = 2
        while f"{name}#{i}" in self._loop_vars:
            i += 1
        return f"{name}#{i}"

    def _lower_body(self, cursor: Cursor, scope: Scope) -> ir.Block:
        uid = next(self._uid)
        saved, self._scope_uid = self._scope_uid, uid
        try:
            if cursor.kind == CursorKind.COMPOUND_STMT:
                stmts = self.lower_compound(cursor, scope)
            else:
                stmts = []
                self.lower_stmt(cursor, Scope(scope), stmts)
        finally:
            self._scope_uid = saved
        return ir.Block(stmts, self.range_of(cursor), uid=uid)

    def _loop_init(self, text: str, offset: int, scope: Scope, c: Cursor) -> tuple[str, Expr]:
        p = self.parser(text, offset, scope)
        if p.peek() is not None and p.peek().text in cp.BUILTIN_TYPE_WORDS | set(ty.DTYPE_NAMES) | cp.QUALIFIER_WORDS:
            while p.peek() is not None and p.peek(1) is not None and p.peek(1).text not in ("=", "(", "{"):
                p.next()
        name_tok = p.next()
        if name_tok.kind != "id":
            raise self.error("loop must declare or assign an induction variable", offset)
        if p.at("="):
            p.next()
            start = self.scalar(p.expression(), scope)
        elif p.at("(") or p.at("{"):
            close = ")" if p.at("(") else "}"
            p.next()
            start = self.scalar(p.arguments(close)[0], scope)
        else:
            raise self.error("loop induction variable needs an initial value", offset)
        return name_tok.text, start

    def _loop_cond(self, cond: cp.Node, var: str, scope: Scope, c: Cursor) -> tuple[Expr, bool, bool]:
        if isinstance(cond, cp.Binary) and cond.op in ("<", "<=", ">", ">=", "!="):
            lhs, rhs, op = cond.lhs, cond.rhs, cond.op
            if isinstance(rhs, cp.Name) and rhs.parts == (var,) and not (isinstance(lhs, cp.Name) and lhs.parts == (var,)):
                lhs, rhs = rhs, lhs
                op = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}[op]
            if isinstance(lhs, cp.Name) and lhs.parts == (var,):
                bound = self.scalar(rhs, scope)
                return bound, op in ("<=", ">="), op in (">", ">=")
        raise self.error(f"loop condition must compare '{var}' with a bound", cursor=c)

    def _loop_step(self, inc: cp.Node, var: str, scope: Scope, c: Cursor) -> Expr:
        def is_var(n):
            return isinstance(n, cp.Name) and n.parts == (var,)

        if isinstance(inc, cp.Unary) and inc.op in ("++", "--") and is_var(inc.operand):
            return Const(1 if inc.op == "++" else -1)
        if isinstance(inc, cp.Binary) and is_var(inc.lhs):
            if inc.op in ("+=", "-="):
                s = self.scalar(inc.rhs, scope)
                return s if inc.op == "+=" else unop("-", s)
            if inc.op == "=" and isinstance(inc.rhs, cp.Binary) and inc.rhs.op in "+-" and is_var(inc.rhs.lhs):
                s = self.scalar(inc.rhs.rhs, scope)
                return s if inc.rhs.op == "+" else unop("-", s)
        raise self.error(f"loop increment must step '{var}' by a fixed amount", cursor=c)

    def lower_if(self, c: Cursor, scope: Scope, out: list[ir.Stmt]) -> None:
        kids = list(c.get_children())
        cond_cursor = kids[0]
        if cond_cursor.kind == CursorKind.DECL_STMT or cond_cursor.kind == CursorKind.VAR_DECL:
            raise self.error("declarations in if conditions are not supported", cursor=cond_cursor)
        cond = self.scalar(self.parse(*self.text_of(cond_cursor), scope), scope)
        then_c = kids[1]
        else_c = kids[2] if len(kids) > 2 else None
        if isinstance(cond, Const):
            # Compile-time condition (if constexpr, template constants): keep only the live branch.
            chosen = then_c if cond.value else else_c
            if chosen is not None:
                out.append(self._lower_body(chosen, scope))
            return
        self._cond_depth += 1
        try:
            then = self._lower_body(then_c, scope)
            other = self._lower_body(else_c, scope) if else_c is not None else None
        finally:
            self._cond_depth -= 1
        out.append(ir.If(cond, then, other, self.range_of(c)))

    # -- expression statements: instructions, syncs, assignments, calls

    def lower_expr_stmt(self, c: Cursor, scope: Scope, out: list[ir.Stmt]) -> None:
        text, off = self.text_of(c)
        first = cp.tokenize(text, off)[:1]
        if first and first[0].text in self.function_macros:
            raise self.error(
                f"macro '{first[0].text}' expands to PTO statements; macros that expand to instructions "
                "are not supported in version 1 (write the calls out or use an inline function)", cursor=c)
        node = self.parse(text, off, scope)
        loc = self.range_of(c, include_semicolon=True)
        if isinstance(node, cp.Binary) and node.op in cp.ASSIGN_OPS:
            stmt = self.lower_assign(node, scope, loc)
            if stmt is not None:  # None: a GM pointer was rebound
                out.append(stmt)
            return
        if isinstance(node, cp.Unary) and node.op in ("++", "--"):
            out.append(self.lower_assign(cp.Binary(node.offset, "+=" if node.op == "++" else "-=",
                                                   node.operand, cp.Num(node.offset, 1)), scope, loc))
            return
        if isinstance(node, cp.Cast) and node.type.base.parts == ("void",):
            return  # `(void)x;`
        if isinstance(node, cp.Call) and isinstance(node.callee, cp.Member) and node.callee.name == "loop":
            target = self.eval(node.callee.base, scope)
            if isinstance(target, MultiBufferLoop):
                out.append(self.lower_multibuffered(target, node, scope, loc))
                return
        if not isinstance(node, cp.Call) or not isinstance(node.callee, cp.Name):
            raise self.error("unsupported statement", cursor=c)
        self.lower_call(node, scope, loc, out, c)

    def lower_assign(self, node: cp.Binary, scope: Scope, loc: ir.SourceRange) -> ir.Assign:
        if not isinstance(node.lhs, cp.Name) or len(node.lhs.parts) != 1:
            raise self.error("only assignments to local scalar variables are supported", node.offset)
        b = scope.lookup(node.lhs.parts[0])
        if b is not None and b.kind == "ptr" and node.op in ("=", "+=", "-="):
            self.assign_pointer(b, node, scope)
            return None
        if b is None or b.kind != "mutable":
            raise self.error(f"cannot assign to '{node.lhs.parts[0]}'", node.offset)
        rhs = self.scalar(node.rhs, scope)
        if node.op != "=":
            rhs = binop(node.op[:-1], Var(b.value), rhs)
        return ir.Assign(b.value, rhs, loc)

    def assign_pointer(self, b: Binding, node: cp.Binary, scope: Scope) -> None:
        """`p = base + off;`: rebinds the pointer; only where it runs exactly once per declaration."""
        if b.extra != self._control_level():
            raise self.error(f"GM pointer '{node.lhs.parts[0]}' is reassigned inside a loop or a run-time "
                             "condition; derive a new pointer there instead", node.lhs.offset)
        rhs = node.rhs if node.op == "=" else cp.Binary(node.offset, node.op[0], node.lhs, node.rhs)
        value = self.eval(rhs, scope)
        if not isinstance(value, Ptr):
            raise self.error("GM pointers must be derived from a kernel argument", node.rhs.offset)
        b.value = value if b.value is None else replace(value, dtype=b.value.dtype)

    def lower_call(self, node: cp.Call, scope: Scope, loc: ir.SourceRange, out: list[ir.Stmt], c: Cursor) -> None:
        callee = node.callee
        name = callee.last
        user = scope.lookup(name)
        if user is not None and user.kind == "funcs" and not (len(callee.parts) > 1 and callee.parts[0] == "pto"):
            out.extend(self.inline_call(user.value, callee, node, scope, loc))
            return
        op = lookup(name, self.arch)
        if op is not None:
            out.append(self.lower_instruction(op, node, scope, loc))
            return
        if name in ALIAS_OPS:
            out.append(self.lower_alias(name, node, scope, loc))
            return
        if name == "TASSIGN":
            if not self.repoint_gm(node, scope, loc):
                out.append(self.lower_tassign(node, scope, loc))
            return
        if name in ("set_flag", "wait_flag", "pipe_barrier"):
            out.append(self.lower_sync(name, node, scope, loc))
            return
        if name in CROSS_CORE_OPS:
            self.reporter.warn(f"{name} is a cross-core operation; it is passed through untouched and "
                               "not modelled (version 1 handles single-core-type kernels)", loc)
            return
        if name in CONFIG_OPS or name in ("TSYNC",) or name in MASK_BUILTINS:
            return
        if name.startswith("T") and name[1:2].isupper():
            raise self.error(f"unknown PTO instruction '{name}'", node.offset)
        raise self.error(f"unsupported call to '{callee.text}'", node.offset)

    def _args(self, node: cp.Call, scope: Scope) -> list[tuple[cp.Node, Any]]:
        return [(a, self.eval(a, scope)) for a in node.args]

    def lower_instruction(self, op, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.Instr:
        args: list[ir.Arg] = []
        tile_types: list[str] = []
        tiles_seen = gm_seen = 0
        evaluated = self._args(node, scope)
        n_tiles = sum(isinstance(v, (ir.TileRef, ir.TileDecl)) for _, v in evaluated)
        try:
            accesses = op.accesses(n_tiles)
        except IndexError:
            raise self.error(f"{op.name} takes {op.tile_counts} tile operands, found {n_tiles}",
                             node.offset) from None
        for a, v in evaluated:
            text = self.node_text(a)
            if isinstance(v, ir.TileDecl):
                if v.count is not None:
                    raise self.error(f"'{v.cpp_name}' is a tile array; index it", a.offset)
                v = ir.TileRef(v, None)
            if isinstance(v, ir.TileRef):
                tile_types.append(v.tile.tile_type)
                args.append(ir.Arg("tile", v, accesses[tiles_seen], text))
                tiles_seen += 1
            elif isinstance(v, ir.GmTensor):
                if gm_seen >= len(op.gm):
                    raise self.error(f"{op.name} does not take a GlobalTensor here", a.offset)
                args.append(ir.Arg("gm", ir.GmRef(v), op.gm[gm_seen], text))
                gm_seen += 1
            elif isinstance(v, Expr):
                args.append(ir.Arg("scalar", v, "", text))
            else:
                raise self.error(f"unsupported operand {describe(v)} for {op.name}", a.offset)
        if gm_seen < len(op.gm):
            raise self.error(f"{op.name} needs a GlobalTensor operand", node.offset)
        try:
            pipe = pipe_of(op, tile_types, self.arch)
        except PipeRuleError as e:
            raise self.error(str(e), node.offset) from None
        targs = tuple(self.node_text(t) for t in (node.callee.targs or ()))
        return ir.Instr(op.name, pipe, tuple(args), targs, loc, self.via, uid=next(self._uid))

    def _tile_arg(self, a: cp.Node, scope: Scope, what: str) -> ir.TileRef:
        v = self.eval(a, scope)
        if isinstance(v, ir.TileDecl) and v.count is None:
            return ir.TileRef(v, None)
        if isinstance(v, ir.TileRef):
            return v
        raise self.error(f"{what} must be a tile", a.offset)

    def lower_alias(self, name: str, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.AliasDef:
        if len(node.args) < 2:
            raise self.error(f"{name} needs a destination and a source tile", node.offset)
        dst = self._tile_arg(node.args[0], scope, f"{name} destination")
        src = self._tile_arg(node.args[1], scope, f"{name} source")
        if name == "TRESHAPE":
            offset = Const(0)
            if dst.tile.nbytes > src.tile.nbytes:
                raise self.error(f"TRESHAPE destination '{dst}' ({dst.tile.nbytes} B) is larger than its "
                                 f"source '{src}' ({src.tile.nbytes} B)", node.offset)
        else:
            if len(node.args) < 4:
                raise self.error("TSUBVIEW needs a destination, a source, a row and a column offset", node.offset)
            r = self.scalar(node.args[2], scope)
            col = self.scalar(node.args[3], scope)
            st = tile_type_of(src.tile)
            elems = binop("+", binop("*", r, Const(st.row_stride)), binop("*", col, Const(st.col_stride)))
            offset = binop("*", elems, Const(src.tile.elem_bytes))
        if dst.tile.tile_type != src.tile.tile_type:
            raise self.error(f"{name} must keep the TileType ({src.tile.tile_type} -> {dst.tile.tile_type})", node.offset)
        alias = ir.Alias(name, src, offset, loc)
        if dst.tile.alias is not None and dst.tile.alias.loc != loc:
            raise self.error(f"'{dst.tile.cpp_name}' is already an alias (AUTO mode allows one "
                             f"TRESHAPE/TSUBVIEW per destination)", node.offset)
        dst.tile.alias = alias
        return ir.AliasDef(name, dst, src, offset, loc, self.via)

    def repoint_gm(self, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> bool:
        """`TASSIGN(gmTensor, ptr)` (AUTO and manual mode): the view starts at `ptr` from here on.
        Returns False when the operand is not a GlobalTensor variable."""
        target = node.args[0] if node.args else None
        if node.callee.targs or not (isinstance(target, cp.Name) and len(target.parts) == 1):
            return False
        b = scope.lookup(target.parts[0])
        if b is None or b.kind != "gm":
            return False
        if len(node.args) != 2:
            raise self.error("TASSIGN needs a GlobalTensor and a GM pointer", node.offset)
        ptr = self.eval(node.args[1], scope)
        if not isinstance(ptr, Ptr):
            raise self.error("TASSIGN of a GlobalTensor needs a GM pointer derived from a kernel argument",
                             node.args[1].offset)
        old, name = b.value, target.parts[0]
        g = replace(old, name=self.unique_name(name), param=ptr.param, offset_bytes=ptr.offset_bytes, loc=loc)
        self.gm_tensors.append(g)
        state = b.extra if isinstance(b.extra, GmState) else None
        level = self._control_level()
        if state is not None and state.level == level:
            b.value = g  # runs once per declaration: later uses see the new origin
            return True
        # Inside a loop body or branch: a fresh view for the rest of this block only.
        loops = tuple(self._loop_ids)
        if state is not None and loops and any(u[:len(loops)] == loops for u in state.used_in):
            raise self.error(f"GlobalTensor '{name}' is used in this loop before its TASSIGN; re-point it "
                             "before its first use in the loop body", node.offset)
        if state is not None:
            state.repointed_at = loc
        scope.define(name, Binding("gm", g, GmState(level)))
        return True

    def lower_tassign(self, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.TileAssign:
        targs = node.callee.targs or ()
        if targs:
            addr = self.scalar(targs[0], scope)
            ref = self._tile_arg(node.args[0], scope, "TASSIGN operand")
        else:
            if len(node.args) != 2:
                raise self.error("TASSIGN needs a tile and an address", node.offset)
            ref = self._tile_arg(node.args[0], scope, "TASSIGN operand")
            addr = self.scalar(node.args[1], scope)
        self.manual = True
        a, i = addr.const_value(), (ref.index.const_value() if ref.index is not None else 0)
        if isinstance(a, int) and isinstance(i, int):
            ref.tile.fixed_addresses.setdefault(i, a)
        return ir.TileAssign(ref, addr, loc, self.via)

    def lower_sync(self, name: str, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.Sync:
        args = [self.scalar(a, scope) for a in node.args]
        pipes = [a.const_value() for a in args[:2 if name != "pipe_barrier" else 1]]
        for p, a in zip(pipes, node.args):
            if not isinstance(p, str):
                raise self.error("pipes must be PIPE_* constants", a.offset)
        self.manual = True
        if name == "pipe_barrier":
            if len(args) != 1:
                raise self.error("pipe_barrier takes one pipe", node.offset)
            if pipes[0] == "S":
                raise self.error("pipe_barrier(PIPE_S) is illegal", node.offset)
            return ir.Sync("barrier", pipes[0], None, None, loc, self.via)
        if len(args) != 3:
            raise self.error(f"{name} takes a source pipe, a destination pipe and an event id", node.offset)
        ev = args[2]
        c = ev.const_value()
        if c is not None and not (isinstance(c, int) and 0 <= c < 8):
            raise self.error(f"event id {c} is out of range 0..7", node.args[2].offset)
        return ir.Sync("set" if name == "set_flag" else "wait", pipes[0], pipes[1], ev, loc, self.via)

    def lower_multibuffered(self, mb: MultiBufferLoop, node: cp.Call, scope: Scope,
                            loc: ir.SourceRange) -> ir.For:
        """`db.loop<Range<N...>, FirstK, LastK>([&](auto ctx[, auto inner]) { ... })`: a counted loop;
        iteration i runs on lane i % NumBuffs and tiles declared in the body get one copy per lane."""
        targs = [self.eval(a, scope) for a in (node.callee.targs or ())]
        dims = mb.dims
        if dims is None:
            if not targs or not isinstance(targs[0], ty.RangeType):
                raise self.error("MultiBuffered::loop needs a Range<...> template argument", node.offset)
            dims, targs = targs[0].dims, targs[1:]
        first_k = int(targs[0].const_value()) if len(targs) > 0 else 0
        last_k = int(targs[1].const_value()) if len(targs) > 1 else 0
        if len(node.args) != 1 or not isinstance(node.args[0], cp.Lambda):
            raise self.error("MultiBuffered::loop takes one lambda", node.offset)
        lam = node.args[0]
        n = dims[0]
        names = [p[1] for p in lam.params]
        ivar = self.unique_loop_var(names[0] if names and names[0] else "iter")
        i = Var(ivar)
        slot = binop("%", i, Const(mb.buffers))
        phase = select(binop("<", i, Const(first_k)), Const("Phase::Prologue"),
                       select(binop(">=", i, Const(n - last_k)), Const("Phase::Epilogue"), Const("Phase::Main")))
        inner = Scope(scope)
        if not names or len(names) > 2 or (len(names) == 2 and len(dims) < 2):
            raise self.error("the MultiBuffered body takes (ctx) or, for a nested Range, (ctx, inner)", lam.offset)
        inner.define(names[0], Binding("mbctx", LaneContext(i, slot, phase)))
        if len(names) == 2:
            inner.define(names[1], Binding("multibuf", MultiBufferLoop(mb.buffers, dims[1:])))
        self._loop_vars.append(ivar)
        self._loop_ids.append(next(self._loop_serial))
        self._loops.append((ivar, Const(0), Const(1), n, f"{names[0]}.iter", len(self._stack)))
        self._lanes.append(self._physical_lane(mb.buffers, slot, f"{names[0]}.bufferId"))
        uid = next(self._uid)
        saved, self._scope_uid = self._scope_uid, uid
        try:
            stmts = self.lower_compound(self._lambda_body_cursor(lam), inner)
        finally:
            self._loop_vars.pop()
            self._loop_ids.pop()
            self._loops.pop()
            self._lanes.pop()
            self._scope_uid = saved
        body = ir.Block(stmts, self.src.range(lam.body_start, lam.body_end), uid=uid)
        return ir.For(ivar, Const(0), Const(n), Const(1), body, loc, kind="MultiBuffered", buffers=mb.buffers,
                      cpp_var=f"{names[0]}.iter")

    def _physical_lane(self, buffers: int, lane: Expr, lane_text: str) -> tuple[int, Expr, str]:
        """Which copy a per-lane tile uses in this iteration.

        AUTO mode promises each lane its own copy; which physical copy serves an iteration is
        an allocation choice. The lane id restarts with every run of the loop, so a loop that
        runs once per output tile would use copy 0 every time and the next run could not load
        while this one computes. Counting the iterations of the enclosing loops of the same
        function as well (when their trip counts are constant) alternates the copies across
        runs, as a hand-written kernel's ping-pong index does.
        """
        depth = len(self._stack)
        frames = []
        for f in reversed(self._loops):
            if f[5] != depth:
                break
            frames.insert(0, f)
        if len(frames) < 2 or any(f[3] is None for f in frames):
            return buffers, lane, lane_text
        count: Expr = Const(0)
        for var, start, step, trips, _, _ in frames:
            index = binop("-", Var(var), start)
            if step != Const(1):
                index = binop("/", index, step)
            count = binop("+", binop("*", count, Const(trips)), index)
        physical = binop("%", count, Const(buffers))
        names = {f[0]: f[4] for f in frames}
        return buffers, physical, cpp_text(physical, names)

    def _lambda_body_cursor(self, lam: cp.Lambda) -> Cursor:
        fname = self.src.path
        for c in self._cursors_in_file(fname):
            if c.kind == CursorKind.COMPOUND_STMT and c.extent.start.offset == lam.body_start:
                return c
        raise self.error("cannot find the lambda body", lam.offset)

    def _cursors_in_file(self, fname: str):
        cache = self.__dict__.setdefault("_compound_cache", {})
        if fname not in cache:
            found = []
            for top in self.tu.cursor.get_children():
                if top.location.file is not None and top.location.file.name == fname:
                    found += [c for c in top.walk_preorder() if c.kind == CursorKind.COMPOUND_STMT]
            cache[fname] = found
        return cache[fname]

    # -- inlining user functions

    def _pick_function(self, funcs: list[Function], nargs: int, offset: int) -> Function:
        fits = [f for f in funcs if param_count_fits(f.cursor, nargs)]
        if not fits:
            raise self.error(f"no overload of '{funcs[0].name}' takes {nargs} arguments", offset)
        return fits[0]

    def inline_call(self, funcs: list[Function], callee: cp.Name, node: cp.Call, scope: Scope,
                    loc: ir.SourceRange, ) -> list[ir.Stmt]:
        fn = self._pick_function(funcs, len(node.args), node.offset)
        key = fn.cursor.get_usr() or fn.name
        if any(f.func_key == key for f in self._stack):
            raise self.error(f"recursion is not supported ('{fn.name}' calls itself)", node.offset)
        fsrc = self.file_of(fn.cursor)
        out_ptrs = self._pointer_out_args(fn, node, scope, fsrc)
        args = [out_ptrs[i].value if i in out_ptrs else self.eval(a, scope) for i, a in enumerate(node.args)]
        targs = [self.eval(a, scope) for a in (callee.targs or ())]
        inner = Scope(self.globals)
        nested = bool(self._stack)
        self._stack.append(Frame(fsrc, self.via + (loc,), key))
        try:
            self._bind_call(fn, targs, args, inner, fsrc, node, out_ptrs)
            body = self.lower_function_body(fn.cursor, inner)
        finally:
            self._stack.pop()
        if not nested:
            return body  # the kernel template called from the entry: its body is the kernel
        # A helper call stays one statement at the call site: synchronization around it is
        # written at the call, where the caller's names are in scope.
        return [ir.Block(body, loc, uid=next(self._uid), inlined=True)]

    def call_value_function(self, funcs: list[Function], callee: cp.Name, node: cp.Call, scope: Scope):
        """A constexpr helper like `CeilDiv(a, b)`: its body must be a single return statement."""
        fn = self._pick_function(funcs, len(node.args), node.offset)
        body = next(c for c in fn.cursor.get_children() if c.kind == CursorKind.COMPOUND_STMT)
        stmts = list(body.get_children())
        if len(stmts) != 1 or stmts[0].kind != CursorKind.RETURN_STMT:
            raise self.error(f"'{fn.name}' is used as a value but is not a single return statement", node.offset)
        args = [self.eval(a, scope) for a in node.args]
        targs = [self.eval(a, scope) for a in (callee.targs or ())]
        fsrc = self.file_of(fn.cursor)
        inner = Scope(self.globals)
        self._stack.append(Frame(fsrc, self.via, fn.cursor.get_usr() or fn.name))
        try:
            self._bind_call(fn, targs, args, inner, fsrc, node)
            ret = stmts[0]
            text, off = self.text_of(ret)
            expr_text = text[len("return"):].rstrip().rstrip(";")
            return self.eval(self.parse(expr_text, off + len("return"), inner), inner)
        finally:
            self._stack.pop()

    @staticmethod
    def _pointer_out_args(fn: Function, node: cp.Call, scope: Scope, fsrc: SourceFile) -> dict[int, Binding]:
        """Arguments passed to `T *&` parameters: the callee shares the caller's pointer binding."""
        params = [c for c in fn.cursor.get_children() if c.kind == CursorKind.PARM_DECL]
        shared = {}
        for i, (a, p) in enumerate(zip(node.args, params)):
            if not (isinstance(a, cp.Name) and len(a.parts) == 1):
                continue
            b = scope.lookup(a.parts[0])
            ptext = "".join(fsrc.text[p.extent.start.offset:p.location.offset].split())
            if b is not None and b.kind == "ptr" and ptext.endswith("*&"):
                shared[i] = b
        return shared

    def _bind_call(self, fn: Function, targs: list, args: list, inner: Scope, fsrc: SourceFile, node: cp.Call,
                   shared: dict[int, Binding] | None = None):
        tparams = template_params(fn.cursor, fsrc) if fn.cursor.kind == CursorKind.FUNCTION_TEMPLATE else []
        params = [c for c in fn.cursor.get_children() if c.kind == CursorKind.PARM_DECL]
        # Deduce omitted type parameters from tile / tensor / pointer arguments.
        bound = list(targs)
        if len(bound) < len(tparams):
            deduced: dict[str, Any] = {}
            for p, a in zip(params, args):
                ptext = fsrc.text[p.extent.start.offset:p.location.offset]
                words = [w for w in cp.tokenize(ptext) if w.kind == "id" and w.text not in cp.QUALIFIER_WORDS]
                if not words:
                    continue
                tname = words[-1].text
                d = deduce_type(a)
                if d is not None:
                    deduced.setdefault(tname, d)
            for kind, pname, default in tparams[len(bound):]:
                if pname in deduced and deduced[pname] is not None:
                    bound.append(deduced[pname])
                elif default is not None:
                    break
                else:
                    raise self.error(f"cannot deduce template parameter '{pname}' of '{fn.name}'; "
                                     "give it explicitly", node.offset)
        self.bind_template_params(tparams, bound, inner, fsrc)
        if len(args) > len(params):
            raise self.error(f"too many arguments to '{fn.name}'", node.offset)
        shared = shared or {}
        for i, (p, a) in enumerate(zip(params, args)):
            inner.define(p.spelling, shared[i] if i in shared else self._param_binding(a))
        for p in params[len(args):]:
            default = param_default(p, fsrc)
            if default is None:
                raise self.error(f"missing argument '{p.spelling}' to '{fn.name}'", node.offset)
            inner.define(p.spelling, self._param_binding(self.eval(self.parse(*default, inner), inner)))

    @staticmethod
    def _param_binding(a) -> Binding:
        if isinstance(a, ir.TileRef):
            return Binding("ref", a)
        if isinstance(a, ir.TileDecl):
            return Binding("tile", a)
        if isinstance(a, ir.GmTensor):
            return Binding("gm", a)
        if isinstance(a, Ptr):
            return Binding("ptr", a)
        if isinstance(a, (ty.TileType, ty.GmType, ty.ScalarType)):
            return Binding("type", a)
        return Binding("value", a)


# ---------------------------------------------------------------- helpers


def describe(v) -> str:
    if isinstance(v, ir.TileRef):
        return f"tile '{v}'"
    if isinstance(v, ir.TileDecl):
        return f"tile array '{v.cpp_name}'"
    if isinstance(v, ir.GmTensor):
        return f"GlobalTensor '{v.name}'"
    if isinstance(v, Ptr):
        return "a GM pointer"
    if isinstance(v, Expr):
        return "a scalar"
    if isinstance(v, list):
        return "a function"
    return type(v).__name__


def elem_bytes(dtype: str) -> int:
    return max(1, int(ir.DTYPE_BYTES.get(dtype, 1)))


def tile_type_of(t: ir.TileDecl) -> ty.TileType:
    return ty.TileType(t.tile_type, t.dtype, t.rows, t.cols, t.blayout, t.valid_rows, t.valid_cols,
                       t.slayout, t.type_text)


def deduce_type(a):
    if isinstance(a, ir.TileRef):
        return tile_type_of(a.tile)
    if isinstance(a, ir.TileDecl):
        return tile_type_of(a)
    if isinstance(a, ir.GmTensor):
        return ty.GmType(a.dtype, a.shape, a.stride, "ND", a.type_text)
    if isinstance(a, Ptr):
        return ty.ScalarType(a.dtype)
    return None


def template_params(cursor: Cursor, src: SourceFile) -> list[tuple[str, str, tuple[str, int] | None]]:
    """(kind, name, default text and offset) of a template's parameters, in order."""
    out = []
    for c in cursor.get_children():
        if c.kind in (CursorKind.TEMPLATE_TYPE_PARAMETER, CursorKind.TEMPLATE_NON_TYPE_PARAMETER,
                      CursorKind.TEMPLATE_TEMPLATE_PARAMETER):
            text = src.text[c.extent.start.offset:c.extent.end.offset]
            default = None
            if c.spelling and "=" in text:
                name_end = c.location.offset - c.extent.start.offset + len(c.spelling)
                eq = text.find("=", name_end)
                if eq >= 0:
                    default = (text[eq + 1:], c.extent.start.offset + eq + 1)
            kind = "type" if c.kind == CursorKind.TEMPLATE_TYPE_PARAMETER else "value"
            out.append((kind, c.spelling, default))
    return out


def param_default(p: Cursor, src: SourceFile) -> tuple[str, int] | None:
    text = src.text[p.extent.start.offset:p.extent.end.offset]
    name_end = p.location.offset - p.extent.start.offset + len(p.spelling)
    eq = text.find("=", name_end)
    return (text[eq + 1:], p.extent.start.offset + eq + 1) if eq >= 0 else None


def param_count_fits(fn: Cursor, nargs: int) -> bool:
    params = [c for c in fn.get_children() if c.kind == CursorKind.PARM_DECL]
    if nargs > len(params):
        return False
    required = 0
    for p in params:
        text = " ".join(t.spelling for t in p.get_tokens())
        if "=" not in text:
            required += 1
    return nargs >= required


def matching_paren(text: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise LoweringError("unbalanced parentheses")


def split_top_level(text: str, sep: str) -> list[tuple[str, int]]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append((text[start:i], start))
            start = i + 1
    parts.append((text[start:], start))
    return parts
