"""User structs (records) in kernels: a struct of scalars, pointers, scalar arrays and nested
structs, laid out as clang lays it out, and the three ways kernels use one.

- By value (a kernel parameter `Shape shape`, a local `Ctx c{a, b}`, a helper's `const Ctx &c`):
  a `RecordValue`, each field a value of its own. The fields of a kernel parameter are run-time
  values like scalar parameters (`shape.m`); a pointer field is a GM pointer of unknown
  provenance, analysed as a region of its own (with a warning: no other pointer is assumed to
  alias it).
- Through a GM pointer (`__gm__ Ctx *p`, a `Ptr` whose `record` is the struct): `p->field` is a
  scalar-unit read of GM at the field's offset (the same rule as `*p`: sound only on arguments no
  instruction writes), `p->field = v` a scalar-unit store, `&p->field` and `p->array` pointers
  into the struct. A pointer read out of GM (`p->buffer`, another rank's window address turned
  into a pointer) is an opaque region written by nobody on this core unless this kernel writes
  it, with a warning.
- As a type: `sizeof(S)`, `offsetof(S, f)`, pointer arithmetic in units of the struct.
"""

from __future__ import annotations

from typing import Any

from clang.cindex import Cursor, CursorKind, TypeKind

from ptorewrite.analysis.expr import Const, Expr, Var
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import types as ty
from ptorewrite.parse.consteval import ScalarArray
from ptorewrite.parse.values import NULL_POINTER, Ptr, RecordValue, Scope, elem_bytes

_CLANG_SCALARS = {
    TypeKind.BOOL: "bool", TypeKind.CHAR_S: "int8", TypeKind.SCHAR: "int8", TypeKind.CHAR_U: "uint8",
    TypeKind.UCHAR: "uint8", TypeKind.SHORT: "int16", TypeKind.USHORT: "uint16", TypeKind.INT: "int32",
    TypeKind.UINT: "uint32", TypeKind.LONG: "int64", TypeKind.ULONG: "uint64", TypeKind.LONGLONG: "int64",
    TypeKind.ULONGLONG: "uint64", TypeKind.FLOAT: "fp32", TypeKind.HALF: "fp16",
    TypeKind.DOUBLE: "fp64", TypeKind.ENUM: "int32",
}
RECORD_KINDS = (CursorKind.STRUCT_DECL, CursorKind.CLASS_DECL)


class RecordLowering:
    """Mixed into `lower.Lowering`."""

    # -- types

    def record_type(self, cursor: Cursor) -> ty.RecordType | None:
        cache = self.__dict__.setdefault("_record_types", {})
        key = cursor.get_usr() or cursor.hash
        if cache.get(key, 0) is None:
            return None  # a struct that points at its own kind (`struct Node *next`), being laid out
        if key not in cache:
            cache[key] = None
            t = cursor.type
            fields = []
            for f in cursor.get_children():
                if f.kind != CursorKind.FIELD_DECL:
                    continue
                fields.append(ty.RecordField(f.spelling, t.get_offset(f.spelling) // 8, self._field_type(f.type)))
            cache[key] = ty.RecordType(cursor.spelling, max(0, t.get_size()), tuple(fields))
        return cache[key]

    def _field_type(self, t):
        t = t.get_canonical()
        if t.kind in _CLANG_SCALARS:
            return ty.ScalarType(_CLANG_SCALARS[t.kind])
        if t.kind == TypeKind.POINTER:
            inner = self._field_type(t.get_pointee())
            if isinstance(inner, ty.ScalarType):
                return ty.PointerType(inner.dtype)
            if isinstance(inner, ty.RecordType):
                return ty.PointerType("uint8", inner)
            return ty.PointerType("uint8")
        if t.kind == TypeKind.CONSTANTARRAY:
            inner = self._field_type(t.get_array_element_type())
            if isinstance(inner, ty.ScalarType):
                return ty.ArrayType(inner.dtype, t.get_array_size())
        if t.kind == TypeKind.RECORD and t.get_declaration().kind in RECORD_KINDS:
            return self.record_type(t.get_declaration())
        return ty.OpaqueType(t.spelling)

    # -- values

    def record_argument(self, name: str, rt: ty.RecordType) -> RecordValue:
        """A struct the host passes by value: every field a run-time value named `name.field`."""
        fields: dict[str, Any] = {}
        for f in rt.fields:
            path = f"{name}.{f.name}"
            if isinstance(f.type, ty.ScalarType):
                fields[f.name] = Var(path)
            elif isinstance(f.type, ty.PointerType):
                fields[f.name] = Ptr(path, Const(0), f.type.dtype, f.type.record)
                # Warned about where it is used (see record_member).
                self.__dict__.setdefault("_opaque_fields", {})[path] = name
            elif isinstance(f.type, ty.ArrayType):
                fields[f.name] = ScalarArray(path, f.type.dtype, [Var(f"{path}[{i}]") for i in range(f.type.length)],
                                             (0, 0))
            elif isinstance(f.type, ty.RecordType):
                fields[f.name] = self.record_argument(path, f.type)
            else:
                fields[f.name] = None  # a member of a kind not modelled: refused where it is used
        return RecordValue(rt, fields)

    def record_from_init(self, rt: ty.RecordType, items: list[cp.Node], scope: Scope, offset: int) -> RecordValue:
        """`S s{a, b}`, `S s = {a, b}`, `S{}`: fields in declaration order; the rest are zero."""
        if len(items) == 1 and not isinstance(items[0], cp.InitList):
            v = self.eval(items[0], scope)
            if isinstance(v, RecordValue) and v.type == rt:
                return v.copy()
            if not rt.fields or len(rt.fields) > 1:
                raise self.error(f"cannot initialise struct '{rt.name}' from {self._what(v)}", offset)
        if len(items) > len(rt.fields):
            raise self.error(f"too many initialisers for struct '{rt.name}'", offset)
        fields: dict[str, Any] = {}
        for i, f in enumerate(rt.fields):
            if i >= len(items):
                fields[f.name] = self._zero(f.type, f"{rt.name}.{f.name}")
                continue
            item = items[i]
            if isinstance(f.type, ty.RecordType):
                sub = list(item.items) if isinstance(item, cp.InitList) else [item]
                fields[f.name] = self.record_from_init(f.type, sub, scope, item.offset)
            elif isinstance(f.type, ty.ArrayType):
                raise self.error(f"initialising the array member '{f.name}' of struct '{rt.name}' is not supported",
                                 item.offset)
            else:
                fields[f.name] = self.eval(item, scope)
        return RecordValue(rt, fields)

    def _zero(self, t, name: str):
        if isinstance(t, ty.ScalarType):
            return Const(0)
        if isinstance(t, ty.PointerType):
            return NULL_POINTER
        if isinstance(t, ty.ArrayType):
            return ScalarArray(name, t.dtype, [Const(0)] * t.length, (0, 0))
        if isinstance(t, ty.RecordType):
            return RecordValue(t, {f.name: self._zero(f.type, f"{name}.{f.name}") for f in t.fields})
        return None

    @staticmethod
    def _what(v) -> str:
        from ptorewrite.parse.values import describe
        return describe(v)

    # -- members

    def record_member(self, base, node: cp.Member, address: bool = False):
        """`v.f` of a struct value, `p->f` (or `(*p).f`) through a GM pointer to a struct; with
        `address`, `&p->f`."""
        if isinstance(base, RecordValue):
            if address:
                raise self.error(f"the address of member '{node.name}' of a struct value is not supported",
                                 node.offset)
            if node.name not in base.fields:
                raise self.error(f"struct '{base.type.name}' has no member '{node.name}'", node.offset)
            v = base.fields[node.name]
            owner = self.__dict__.get("_opaque_fields", {}).get(getattr(v, "param", None))
            if isinstance(v, Ptr) and owner is not None:
                self.warn_opaque_pointer(v.param, f"a pointer field of the struct argument '{owner}'",
                                         self.src.range(node.offset, node.offset))
            if v is None:
                raise self.error(f"member '{node.name}' of struct '{base.type.name}' is of a type ptorewrite does "
                                 "not model", node.offset)
            return v
        rt = base.record
        f = rt.field(node.name)
        if f is None:
            raise self.error(f"struct '{rt.name}' has no member '{node.name}'", node.offset)
        at = Ptr(base.param, _plus(base.offset_bytes, f.offset), "uint8")
        if isinstance(f.type, ty.RecordType):
            return Ptr(at.param, at.offset_bytes, "uint8", f.type)
        if isinstance(f.type, ty.ArrayType):  # decays to a pointer to its first element
            return Ptr(at.param, at.offset_bytes, f.type.dtype)
        if isinstance(f.type, (ty.ScalarType, ty.PointerType)):
            if address:
                dtype = f.type.dtype if isinstance(f.type, ty.ScalarType) else "uint64"
                return Ptr(at.param, at.offset_bytes, dtype)
            # One name per GM location when its offset is known, however the pointer to it is
            # spelled (`flags->epoch` and `r->epoch` through two copies of one argument).
            off = base.offset_bytes.const_value()
            text = (f"{base.param}->{node.name}" if off == 0 else f"{base.param}+{off}->{node.name}") \
                if isinstance(off, int) else self.node_text(node) or f"{base.param}->{node.name}"
            if isinstance(f.type, ty.ScalarType):
                return self.scalar_gm_read(Ptr(at.param, at.offset_bytes, f.type.dtype), text, node.offset)
            self.scalar_gm_read(Ptr(at.param, at.offset_bytes, "uint64"), text, node.offset)
            return self.pointer_read_from_gm(text, f.type.dtype, f.type.record, node.offset)
        raise self.error(f"member '{node.name}' of struct '{rt.name}' is of a type ptorewrite does not model",
                         node.offset)

    def pointer_read_from_gm(self, text: str, dtype: str, record: ty.RecordType | None, offset: int) -> Ptr:
        """A GM address the kernel reads out of GM (a struct's pointer field, a peer rank's window):
        where it points is known only at run time. It is analysed as a region of its own."""
        name = " ".join(text.split())
        what = "a GM address computed from values read from GM (another rank's memory, for one)" \
            if name.endswith("@peer") else "a GM address read from GM"
        self.warn_opaque_pointer(name, what, self.src.range(offset, offset))
        return Ptr(name, Const(0), dtype, record)

    def warn_opaque_pointer(self, name: str, what: str, loc) -> None:
        self.reporter.warn(f"'{name}' is {what}: ptorewrite does not know where it points, so it is analysed as "
                           "a GM region of its own that no other pointer aliases and that nothing outside this "
                           "core writes (memory of other ranks included); races between accesses through it and "
                           "through other pointers are not checked", loc)

    def address_of(self, node: cp.Node, scope: Scope):
        """`&p->f`, `&p->a[i]`, `&p[i]`: a GM pointer into the struct or array; None when `node` is
        not such an lvalue."""
        if isinstance(node, cp.Member):
            base = self.eval(node.base, scope)
            if isinstance(base, Ptr) and base.record is not None:
                return self.record_member(base, node, address=True)
            return None
        if isinstance(node, cp.Index):
            base = self.eval(node.base, scope)
            if isinstance(base, Ptr):
                i = self.scalar(node.index, scope)
                size = base.record.size if base.record is not None else elem_bytes(base.dtype)
                return Ptr(base.param, _plus(base.offset_bytes, _times(i, size)), base.dtype, base.record)
        return None

    def offset_of(self, node: cp.Call, scope: Scope) -> Expr:
        """`offsetof(S, f)`."""
        if len(node.args) != 2 or not isinstance(node.args[1], cp.Name):
            raise self.error("offsetof takes a struct and a member name", node.offset)
        t = node.args[0]
        t = t if isinstance(t, cp.TypeId) else cp.TypeId(t.offset, t)
        rt = self.resolve_type(t, scope)
        f = rt.field(node.args[1].last) if isinstance(rt, ty.RecordType) else None
        if f is None:
            raise self.error("offsetof of this member is not known", node.offset)
        return Const(f.offset)


def _plus(e: Expr, n: int) -> Expr:
    from ptorewrite.analysis.expr import binop
    return e if n == 0 else binop("+", e, Const(n))


def _times(e: Expr, n: int) -> Expr:
    from ptorewrite.analysis.expr import binop
    return binop("*", e, Const(n))
