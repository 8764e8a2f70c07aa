"""Resolving type-ids and the names of types while lowering: PTO type templates (Tile,
GlobalTensor, Shape, ...), `using` aliases and alias templates, user class templates with partial
specializations (type selectors), enumerations, standard type traits, and members of types
(`TileT::Rows`, `Sel<...>::Type`). Mixed into `lower.Lowering`."""

from __future__ import annotations

from dataclasses import replace

from clang.cindex import Cursor, CursorKind

from ptorewrite.analysis.expr import Const, as_expr
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import types as ty
from ptorewrite.parse.cursor_text import template_params
from ptorewrite.parse.sdma import SDMA_TYPES
from ptorewrite.parse.source import SourceFile
from ptorewrite.parse.values import NAMESPACES, USE_DEFAULT, Binding, LoweringError, Scope

# Standard type traits a kernel body may test (`if constexpr (std::is_same_v<T, half>)`).
VALUE_TRAITS = frozenset({"is_same_v", "is_same", "is_floating_point_v", "is_floating_point", "is_integral_v",
                          "is_integral", "is_signed_v", "is_signed", "is_unsigned_v", "is_unsigned"})
TYPE_TRAITS = frozenset({"conditional_t", "conditional"})


# a5 register-level vector code (inside `__VEC_SCOPE__` blocks): its types and intrinsics.
VECTOR_REGISTER_TYPES = frozenset({"RegTensor", "UnalignReg", "MaskReg"})
VECTOR_REGISTER_CODE = VECTOR_REGISTER_TYPES | {"CreatePredicate", "mem_bar", "vldas", "vldus", "vlds", "vsts"}


def vector_register_refusal(name: str) -> str:
    return (f"'{name}' is register-level vector code outside a `__VEC_SCOPE__` block; ptorewrite reads such "
            "code only as a whole block (one vector-pipe instruction on all of UB)")


class TypeResolution:
    def value_trait(self, name: str, node: cp.Name, scope: Scope) -> Const:
        """`std::is_same_v<T, half>` and friends, on resolved types."""
        args = [self.eval(a, scope) for a in node.targs]
        if name.startswith("is_same"):
            if len(args) != 2:
                raise self.error(f"{name} takes two types", node.offset)
            return Const(args[0] == args[1])
        t = args[0] if args else None
        if not isinstance(t, ty.ScalarType):
            return Const(False)
        d = t.dtype
        floating = d.startswith(("fp", "bf", "hif"))
        if name.startswith("is_floating_point"):
            return Const(floating)
        if name.startswith("is_integral"):
            return Const(not floating)
        if name.startswith("is_signed"):
            return Const(floating or d.startswith("int"))
        return Const(d.startswith("uint") or d == "bool")  # is_unsigned

    def _instantiate_class(self, name: str, cursors: list[Cursor], base: cp.Name, scope: Scope, offset: int):
        """The specialization of a user class template the arguments select (the first partial
        specialization whose pattern matches, else the primary template); its members are
        looked up on use."""
        args = [self.eval(a, scope) for a in (base.targs or ())]
        for c in cursors:
            if c.kind != CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION:
                continue
            inner = self._match_specialization(c, name, args)
            if inner is not None:
                return ty.ClassType(name, c, inner)
        primary = next((c for c in cursors if c.kind == CursorKind.CLASS_TEMPLATE and c.is_definition()), None)
        if primary is None:
            raise self.error(f"no specialization of '{name}' matches these template arguments", offset)
        src = self.file_of(primary)
        inner = Scope(self.globals)
        with self.frame(src, self.via, "class"):
            self.bind_template_params(template_params(primary, src), args, inner, src)
        return ty.ClassType(name, primary, inner)

    def _class_member_scope(self, t, member: Cursor, offset: int) -> Scope:
        """The class's template parameters and the static members and member aliases declared
        before `member` (an initializer may name them: `MOVE_NUM = MAX_ROWS >= 16 ? ...`, `using
        G = GlobalTensor<T, ShapeDim5, ...>`); one that cannot be read is left out and reported
        only if the initializer uses it."""
        inner = Scope(t.scope)
        for c in t.cursor.get_children():
            if c == member:
                break
            if c.kind in (CursorKind.VAR_DECL, CursorKind.TYPE_ALIAS_DECL, CursorKind.TYPEDEF_DECL) and c.spelling:
                kind = "value" if c.kind == CursorKind.VAR_DECL else "type"
                try:
                    inner.define(c.spelling, Binding(kind, self.member_of_type(t, c.spelling, offset)))
                except LoweringError:
                    continue
        return inner

    def _match_specialization(self, c: Cursor, name: str, args: list) -> Scope | None:
        src = self.file_of(c)
        params = template_params(c, src)
        text = src.text[c.extent.start.offset:c.extent.end.offset]
        at = text.find(name + "<", text.find(">") + 1)
        if at < 0:
            return None
        p = self.parser(text[at:], c.extent.start.offset + at, Scope(self.globals))
        with self.frame(src, self.via, "class"):
            pattern = p.name().targs or ()
            if len(pattern) != len(args):
                return None
            inner = Scope(self.globals)
            names = {pname for _, pname, _ in params}
            for pat, arg in zip(pattern, args):
                node = pat.base if isinstance(pat, cp.TypeId) else pat
                if isinstance(node, cp.Name) and len(node.parts) == 1 and node.last in names:
                    bound = inner.names.get(node.last)
                    if bound is not None and bound.value != arg:
                        return None
                    kind = next(k for k, pname, _ in params if pname == node.last)
                    inner.define(node.last, Binding("type" if kind == "type" else "value", arg))
                    continue
                try:
                    want = self.eval(pat, inner)
                except LoweringError:
                    return None
                if want != arg:
                    return None
        return inner

    def member_of_type(self, t, member: str, offset: int):
        if isinstance(t, ty.ClassType):
            for c in t.cursor.get_children():
                if c.spelling != member:
                    continue
                if c.kind in (CursorKind.TYPE_ALIAS_DECL, CursorKind.TYPEDEF_DECL):
                    # A member alias may name the static members before it (`Tile<T, 1, kCols>`).
                    return self._resolve_alias_cursor(c, self._class_member_scope(t, c, offset))
                if c.kind == CursorKind.VAR_DECL:
                    key = (id(t), member)
                    cache = self.__dict__.setdefault("_class_members", {})
                    if key not in cache:
                        inner = self._class_member_scope(t, c, offset)
                        with self.frame(self.file_of(c), self.via, "class"):
                            decl = self.parse_var_decl(c, inner)
                            cache[key] = (t, self.eval(decl.init[0], inner) if decl.init else None)
                    if cache[key][1] is not None:
                        return cache[key][1]
            raise self.error(f"'{t.name}' has no member '{member}' the front end can read", offset)
        if isinstance(t, ty.MPipeType):
            if member == "DataFiFo":
                return ty.MPipeFifo(t)
            if member == "FlagIDPlusOne":
                return Const(t.flag_id + 1)
        if isinstance(t, ty.MPipeFifo) and member in ("fifoDepth", "fifoPeriod", "localFiFoDepth"):
            p = t.pipe
            return Const({"fifoDepth": p.depth, "fifoPeriod": p.period, "localFiFoDepth": p.local_depth}[member])
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
            # Layout members, compared against enumerators in `if constexpr` (enumerators are
            # read as their qualified names).
            if member == "isRowMajor":
                return Const(t.blayout == "RowMajor")
            if member == "BFractal":
                return Const("BLayout::" + t.blayout)
            if member == "SFractal":
                return Const("SLayout::" + t.slayout)
        if isinstance(t, ty.GmType) and member in ("DType", "RawDType"):  # RawDType: DType without __gm__
            return ty.ScalarType(t.dtype)
        if isinstance(t, ty.GmType) and member == "layout":
            return Const("Layout::" + t.layout)
        if isinstance(t, ty.GmType) and member in ("Shape", "Stride"):  # `typename G::Shape(rows)`
            return ty.DimsType(member.lower(), t.shape if member == "Shape" else t.stride)
        if isinstance(t, ty.PipeType):
            if member in ("Producer", "Consumer"):  # a TPipe end a kernel declares and leaves unused
                return ty.OpaqueType("TPipe::" + member)
            if member == "SyncPeriod":
                return Const(t.sync_period)
            if member == "RingFiFo":
                return ty.PipeRing(t)
        if isinstance(t, ty.PipeRing) and member in ("SLOT_NUM", "SLOT_SIZE", "LOCAL_SLOT_NUM"):
            p = t.pipe
            return Const({"SLOT_NUM": p.slot_num, "SLOT_SIZE": p.slot_size, "LOCAL_SLOT_NUM": p.local_slot_num}[member])
        raise self.error(f"member '{member}' of this type is not supported", offset)

    def resolve_type(self, node: cp.TypeId, scope: Scope):
        base = node.base
        parts = [p for p in base.parts if p not in NAMESPACES and p not in self.user_namespaces] or \
            list(base.parts[-1:])
        name = parts[-1]
        if node.pointer:
            inner = self.resolve_type(replace(node, pointer=0, reference=False), scope)
            if isinstance(inner, ty.ScalarType):
                return ty.PointerType(inner.dtype)
            if isinstance(inner, ty.RecordType):
                return ty.PointerType("uint8", inner)  # its bytes; members are read at their offsets
            if inner == ty.OpaqueType("void"):
                return ty.PointerType("void")  # `__gm__ void *`: typed by the cast or view that uses it
            raise self.error("pointers to this type are not supported", node.offset)
        if parts[0] in TYPE_TRAITS and base.targs is not None and parts[1:] in ([], ["type"]):
            if len(base.targs) != 3:
                raise self.error(f"{parts[0]} takes a condition and two types", node.offset)
            c = self.scalar(base.targs[0], scope).const_value()
            if c is None:
                raise self.error(f"the condition of {parts[0]} is not a compile-time constant", node.offset)
            return self.eval(base.targs[1 if c else 2], scope)
        if name == "NestedLoopInvoker":
            # `MultiBuffered<N>::NestedLoopInvoker<Range<M>>` only types a lambda's `inner` parameter.
            return ty.OpaqueType(base.text)
        shadowing = scope.lookup(parts[0]) if len(parts) > 1 else None  # `template <typename TileType>`
        if len(parts) > 1 and parts[0] in self._enum_names and not node.pointer and not (
                shadowing is not None and shadowing.kind in ("type", "lazy_type", "alias_template", "class_template")):
            return Const("::".join(parts))  # `TileType::Vec` read as a type-id: an enumerator is a value
        if len(parts) > 1:
            targs = base.targs if len(parts) == 2 else None
            head = self.resolve_type(cp.TypeId(node.offset, cp.Name(node.offset, (parts[0],), targs)), scope)
            for middle in parts[1:-1]:  # `Spec::SrcGlobal::DType`: a member type of a member type
                head = self.member_of_type(head, middle, node.offset)
            # A static constexpr member is a value: `F<Traits<160>::MOVE_NUM>()` reads it as a
            # template argument, which parses as a type-id.
            return self.member_of_type(head, name, node.offset)
        b = scope.lookup(name)
        if b is not None:
            if b.kind == "alias_template":
                return self._instantiate_alias_template(b.value, base, scope)
            if b.kind == "class_template":
                return self._instantiate_class(name, b.value, base, scope, node.offset)
            if b.kind in ("type", "lazy_type", "record"):
                return self.binding_value(b, name, node.offset, scope)
        if name in ty.DTYPE_NAMES:
            return ty.ScalarType(ty.DTYPE_NAMES[name])
        if name == "Signal" and base.targs is None:
            # pto::comm::Signal: one int32 flag in GM.
            one = [Const(1)] * 5
            return ty.make_global_tensor([ty.ScalarType("int32"), ty.make_dims("shape", one),
                                          ty.make_dims("stride", one)], self.node_text(node))
        if name in ty.PTO_TYPE_TEMPLATES:
            args = [self.eval(a, scope) for a in (base.targs or ())]
            text = self.node_text(node)
            try:
                if name == "Tile":
                    return ty.make_tile(args, text)
                if name == "ConvTile":
                    return ty.make_conv_tile(args, text)
                if name == "ConvTileShape":
                    return ty.make_conv_shape(args)
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
                if name == "MultiStaged":
                    return ty.MultiStagedType(int(args[0].const_value()))
                if name == "Range":
                    return ty.RangeType(tuple(int(a.const_value()) for a in args))
                if name == "Event":
                    return ty.make_event(args)
                if name == "TPipe":
                    return ty.make_pipe(args)
                if name == "TMPipe":
                    return ty.make_mpipe(args)
                if name == "TSync_Custom":
                    return ty.make_sync_custom(args)
                return ty.make_alias_tile(name, args, self.arch.name, text)
            except TypeError as e:
                raise self.error(f"{name}<...>: {e}", node.offset) from None
        if name in ty.PTO_ARRAY_TYPES and not node.pointer:
            return ty.PTO_ARRAY_TYPES[name]
        if name in ("void",) or name in ty.PTO_STRUCTS or name in SDMA_TYPES:
            return ty.OpaqueType(name)
        if name in self._enum_names:
            return ty.ScalarType("int32")  # an enumeration: its values stay `Enum::Name` constants
        if name in VECTOR_REGISTER_TYPES:
            raise self.error(vector_register_refusal(name), node.offset)
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
        with self.frame(src, self.via, "alias"):
            p = self.parser(type_text, type_off, scope)
            return self.resolve_type(p.type_id(), scope)

    def _instantiate_alias_template(self, cursor: Cursor, base: cp.Name, scope: Scope):
        src = self.file_of(cursor)
        params = template_params(cursor, src)
        args = [self.eval(a, scope) for a in (base.targs or ())]
        inner = Scope(self.globals)
        with self.frame(src, self.via, "alias"):
            self.bind_template_params(params, args, inner, src)
            alias = next(c for c in cursor.get_children() if c.kind == CursorKind.TYPE_ALIAS_DECL)
            text = src.text[alias.extent.start.offset:alias.extent.end.offset]
            eq = text.index("=")
            p = self.parser(text[eq + 1:], alias.extent.start.offset + eq + 1, inner)
            return self.resolve_type(p.type_id(), inner)

    def bind_template_params(self, params, args, scope: Scope, src: SourceFile) -> None:
        for i, (kind, pname, default) in enumerate(params):
            if i < len(args) and args[i] is not USE_DEFAULT:
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
        with self.frame(src, self.via, "global"):
            decl = self.parse_var_decl(cursor, self.globals)
            if decl.init is None:
                raise self.error(f"'{cursor.spelling}' has no initializer", cursor=cursor)
            return self.eval(decl.init[0], self.globals)
