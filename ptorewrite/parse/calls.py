"""Calls to the user's own functions: choosing the overload, binding template and function
parameters (deduced types, defaults, reference parameters shared with the caller, GM pointers the
callee reassigns), inlining a helper's statements, and helpers used as values. Mixed into
`lower.Lowering`."""

from __future__ import annotations

import re
from typing import Any

from clang.cindex import CursorKind, TypeKind

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, Var
from ptorewrite.diagnostics import PtoError
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import types as ty
from ptorewrite.parse.consteval import ScalarArray
from ptorewrite.parse.cursor_text import (
    is_mutable_reference,
    param_count_fits,
    param_default,
    template_params,
)
from ptorewrite.parse.events import EventObject
from ptorewrite.parse.source import SourceFile
from ptorewrite.parse.values import (
    USE_DEFAULT,
    Binding,
    Function,
    LoweringError,
    Ptr,
    RecordValue,
    Scope,
    deduce_type,
)


class CallInlining:
    def _pick_function(self, funcs: list[Function], nargs: int, offset: int) -> Function:
        fits = [f for f in funcs if param_count_fits(f.cursor, nargs)]
        if not fits:
            raise self.error(f"no overload of '{funcs[0].name}' takes {nargs} arguments", offset)
        return fits[0]

    def inline_call(self, funcs: list[Function], callee: cp.Name, node: cp.Call, scope: Scope,
                    loc: ir.SourceRange, result: str | None = None) -> list[ir.Stmt]:
        """The statements of a call to a user function. `result`: the scalar its `return v` sets,
        when the caller uses the value."""
        fn = self._pick_function(funcs, len(node.args), node.offset)
        key = fn.cursor.get_usr() or fn.name
        if any(f.func_key == key for f in self._stack):
            raise self.error(f"recursion is not supported ('{fn.name}' calls itself)", node.offset)
        fsrc = self.file_of(fn.cursor)
        out_ptrs = self._pointer_out_args(fn, node, scope, fsrc)
        args = [out_ptrs[i].value if i in out_ptrs else self.eval(a, scope) for i, a in enumerate(node.args)]
        targs = [self.eval(a, scope) for a in (callee.targs or ())]
        inner = Scope(self.globals)
        nested = bool(self._stack) or not getattr(self, "forwarding_entry", True)
        with self.frame(fsrc, self.via + (loc,), key):
            prologue: list[ir.Stmt] = []
            bound = self._bind_call(fn, targs, args, inner, fsrc, node, out_ptrs, prologue)
            self._instances.append((key, tuple(_instance_key(t) for t in bound)))
            self._return_vars.append(result)
            try:
                body = prologue + self.lower_function_body(fn.cursor, inner)
            finally:
                self._instances.pop()
                self._return_vars.pop()
        if not nested:
            return body  # the kernel template called from the entry: its body is the kernel
        # A helper call stays one statement at the call site: synchronization around it is
        # written at the call, where the caller's names are in scope.
        return [ir.Block(body, loc, uid=next(self._uid), inlined=True,
                         param_names=self._param_names(fn, inner))]

    @staticmethod
    def _param_names(fn: Function, inner: Scope) -> dict[str, str]:
        """Caller variables a helper sees through its scalar parameters: IR name -> parameter
        name (by value `uint8_t pp` bound to a variable, or by reference `uint8_t &pp`)."""
        out: dict[str, str] = {}
        for p in fn.cursor.get_children():
            if p.kind != CursorKind.PARM_DECL:
                continue
            b = inner.names.get(p.spelling)
            if b is None:
                continue
            if b.kind == "mutable" and isinstance(b.value, str):
                out.setdefault(b.value, p.spelling)
            elif b.kind == "value" and isinstance(b.value, Var):
                out.setdefault(b.value.name, p.spelling)
        return out

    def call_value_function(self, funcs: list[Function], callee: cp.Name, node: cp.Call, scope: Scope):
        """A helper used as a value (see consteval): one `return` is inlined as an expression,
        anything else runs at compile time, or, when it issues work, before the statement that uses
        it (call_with_effects)."""
        fn = self._pick_function(funcs, len(node.args), node.offset)
        body = next(c for c in fn.cursor.get_children() if c.kind == CursorKind.COMPOUND_STMT)
        stmts = list(body.get_children())
        single = len(stmts) == 1 and stmts[0].kind == CursorKind.RETURN_STMT
        args = [self.eval(a, scope) for a in node.args]
        if not single:
            args = [self.with_known(a) if isinstance(a, Expr) else a for a in args]
        targs = [self.eval(a, scope) for a in (callee.targs or ())]
        fsrc = self.file_of(fn.cursor)
        inner = Scope(self.globals)
        with self.frame(fsrc, self.via, fn.cursor.get_usr() or fn.name):
            self._bind_call(fn, targs, args, inner, fsrc, node)
            if single:
                ret = stmts[0]
                text, off = self.text_of(ret)
                expr_text = text[len("return"):].rstrip().rstrip(";")
                return self.eval(self.parse(expr_text, off + len("return"), inner), inner)
            try:
                return self.run_value_function(fn, body, inner, fn.name, node.offset)
            except LoweringError as e:
                if self._pre_stmts is None:  # not in a statement: nowhere to run its work
                    raise
                failure = e
        try:
            return self.call_with_effects(funcs, callee, node, scope)
        except (LoweringError, cp.ParseError, PtoError):
            raise failure from None  # neither way: why it cannot run at compile time

    def call_with_effects(self, funcs: list[Function], callee: cp.Name, node: cp.Call, scope: Scope) -> Var:
        """A helper that issues work (or keeps a static) and returns a value used in an expression
        (`offset = assign_tile_buffers(tiles, offset);`): its body runs before the statement that
        uses it, and its `return v` sets a scalar that stands for the call."""
        fn = self._pick_function(funcs, len(node.args), node.offset)
        result = self.unique_name(f"{fn.name}()")
        self._mutables.add(result)
        loc = self.src.range(node.offset, self._node_ends.get(node, node.offset))
        self._pre_stmts.append(ir.Assign(result, Const(0), loc))
        self._pre_stmts.extend(self.inline_call(funcs, callee, node, scope, loc, result=result))
        return Var(result)

    @staticmethod
    def _pointer_out_args(fn: Function, node: cp.Call, scope: Scope, fsrc: SourceFile) -> dict[int, Binding]:
        """Variables passed to non-const reference parameters (`T *&p`, `uint8_t &flag`): the callee
        shares the caller's binding, so what it assigns the caller sees."""
        params = [c for c in fn.cursor.get_children() if c.kind == CursorKind.PARM_DECL]
        shared = {}
        for i, (a, p) in enumerate(zip(node.args, params)):
            if not (isinstance(a, cp.Name) and len(a.parts) == 1):
                continue
            b = scope.lookup(a.parts[0])
            if b is not None and b.kind in ("ptr", "mutable") and is_mutable_reference(p, fsrc):
                shared[i] = b
        return shared

    def _bind_call(self, fn: Function, targs: list, args: list, inner: Scope, fsrc: SourceFile, node: cp.Call,
                   shared: dict[int, Binding] | None = None, prologue: list[ir.Stmt] | None = None):
        """Bind a call's template and function parameters in `inner`; the template arguments bound.
        `prologue` receives the statements that initialise parameters the callee reassigns (see
        PtrState)."""
        tparams = template_params(fn.cursor, fsrc) if fn.cursor.kind == CursorKind.FUNCTION_TEMPLATE else []
        params = [c for c in fn.cursor.get_children() if c.kind == CursorKind.PARM_DECL]
        # Deduce omitted type parameters from tile / tensor / pointer arguments.
        bound = list(targs)
        if len(bound) < len(tparams):
            deduced: dict[str, Any] = {}
            for p, a in zip(params, args):
                ptext = fsrc.text[p.extent.start.offset:p.location.offset]
                # Words that expand to nothing (`__in__`, `__out__` annotations) are not the type.
                words = [w for w in cp.tokenize(ptext) if w.kind == "id" and w.text not in cp.QUALIFIER_WORDS
                         and self.macros.get(w.text, None) != ""]
                if not words:
                    continue
                tname = words[-1].text
                d = deduce_type(a)
                if d is not None:
                    deduced.setdefault(tname, d)
                # `T (&tiles)[N]`: a tile array passed by reference gives its length.
                after = fsrc.text[p.location.offset:p.extent.end.offset]
                m = re.match(r"\w*\s*\)\s*\[\s*(\w+)\s*\]\s*$", after)
                if m and isinstance(a, ir.TileDecl) and a.count is not None:
                    deduced.setdefault(m.group(1), Const(a.count))
            for kind, pname, default in tparams[len(bound):]:
                if pname in deduced and deduced[pname] is not None:
                    bound.append(deduced[pname])
                elif default is not None:
                    bound.append(USE_DEFAULT)  # defaulted, yet later parameters may be deduced
                else:
                    raise self.error(f"cannot deduce template parameter '{pname}' of '{fn.name}'; "
                                     "give it explicitly", node.offset)
        self.bind_template_params(tparams, bound, inner, fsrc)
        bound_args = bound
        if len(args) > len(params):
            raise self.error(f"too many arguments to '{fn.name}'", node.offset)
        shared = shared or {}
        for i, (p, a) in enumerate(zip(params, args)):
            if i in shared:
                inner.define(p.spelling, shared[i])
            elif isinstance(a, Ptr) and prologue is not None:
                inner.define(p.spelling, self.pointer_binding(a, p, p.spelling, prologue))
            elif isinstance(a, RecordValue) and p.type.get_canonical().kind == TypeKind.RECORD:
                inner.define(p.spelling, Binding("value", a.copy()))  # a struct passed by value
            else:
                inner.define(p.spelling, self._param_binding(a))
        for p in params[len(args):]:
            default = param_default(p, fsrc)
            if default is None:
                raise self.error(f"missing argument '{p.spelling}' to '{fn.name}'", node.offset)
            inner.define(p.spelling, self._param_binding(self.eval(self.parse(*default, inner), inner)))
        return bound_args

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
        if isinstance(a, EventObject):
            return Binding("event", a)
        if isinstance(a, ScalarArray):
            return Binding("array", a)
        return Binding("value", a)


def _instance_key(t) -> object:
    """A template argument as it identifies an instantiation (a tile type's spelling aside)."""
    if isinstance(t, ty.TileType):
        return ("tile", t.tile_type, t.dtype, t.rows, t.cols, t.blayout, str(t.valid_rows), str(t.valid_cols),
                t.slayout, t.compact)
    if isinstance(t, Expr):
        return str(t)
    return repr(t)
