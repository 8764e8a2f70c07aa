"""Calls to the user's own functions: choosing the overload, binding template and function
parameters (deduced types, defaults, reference parameters shared with the caller, GM pointers the
callee reassigns), inlining a helper's statements, and helpers used as values. Mixed into
`lower.Lowering`."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, replace
from typing import Any

from clang.cindex import Cursor, CursorKind, TypeKind

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, Var, cpp_text
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
    NAMESPACES,
    USE_DEFAULT,
    Binding,
    Closure,
    Function,
    LoweringError,
    Ptr,
    RecordValue,
    Scope,
    deduce_type,
)

# What the lowering reads or only caches (parsed text, the translation unit's cursors, macro
# tables): left alone when a compile-time attempt is undone (see _evaluate_or_none).
_READ_ONLY_STATE = frozenset({"top", "files", "macros", "function_macros", "user_files", "_library_templates",
                              "_node_ends", "_stack"})


@dataclass(frozen=True)
class _Evaluated(cp.Node):
    """A call already evaluated (or inlined) where its statement runs: its value."""

    value: Any


class CallInlining:
    def _pick_function(self, funcs: list[Function], nargs: int, offset: int) -> Function:
        fits = [f for f in funcs if param_count_fits(f.cursor, nargs)]
        if not fits:
            raise self.error(f"no overload of '{funcs[0].name}' takes {nargs} arguments", offset)
        return fits[0]

    def inline_call(self, funcs: list[Function], callee: cp.Name, node: cp.Call, scope: Scope,
                    loc: ir.SourceRange, result: str | None = None) -> list[ir.Stmt]:
        """The helper's statements; `return value;` assigns `result` (a fresh variable when the
        helper returns a value the call discards)."""
        fn = self._pick_function(funcs, len(node.args), node.offset)
        if result is None and fn.cursor.result_type.kind != TypeKind.VOID:
            result = self._result_variable(fn.name)
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
            try:
                body = prologue + self.lower_function_body(fn.cursor, inner, result)
            finally:
                self._instances.pop()
        if not nested:
            return body  # the kernel template called from the entry: its body is the kernel
        # A helper call stays one statement at the call site: synchronization around it is
        # written at the call, where the caller's names are in scope.
        return [ir.Block(body, loc, uid=next(self._uid), inlined=True,
                         param_names=self._param_names(fn, inner), param_values=self._param_values(fn, inner),
                         instance=_helper_instance(fn, fsrc, bound))]

    # -- helpers used as values that run on the core

    def hoist_core_helpers(self, node: cp.Node, scope: Scope, loc: ir.SourceRange, out: list[ir.Stmt]) -> cp.Node:
        """The value of a statement (a declaration's initializer, an assignment's right side, a
        returned value), with each call of a user helper that cannot be evaluated at compile time
        (it issues work on the core, or its control flow depends on a run-time value: a loop over
        `n` flags read from GM) replaced by the helper's result. Such a helper runs where the
        statement does: its statements are inlined before the statement (`out`) and its
        `return value;` assigns a fresh variable, which is the call's value. A helper that can be
        evaluated at compile time is evaluated (its value is used, as in any expression). Calls
        are looked for where the statement's value is computed unconditionally: through casts,
        arithmetic and comparisons, not under `&&`, `||`, `?:` or in another call's arguments."""
        if isinstance(node, cp.Call) and isinstance(node.callee, cp.Name):
            funcs = self._user_helpers(node.callee, scope)
            if funcs is None:
                return node
            value = self._evaluate_or_none(node, scope)
            if value is None:
                value = Var(self.inline_value_call(funcs, node, scope, loc, out))
            return _Evaluated(node.offset, value)
        if isinstance(node, cp.Cast) and node.style != "reinterpret_cast":
            inner = self.hoist_core_helpers(node.operand, scope, loc, out)
            return node if inner is node.operand else replace(node, operand=inner)
        if isinstance(node, cp.Unary) and node.op in ("-", "+", "!", "~"):
            inner = self.hoist_core_helpers(node.operand, scope, loc, out)
            return node if inner is node.operand else replace(node, operand=inner)
        if isinstance(node, cp.Binary) and node.op not in ("&&", "||", ",") and node.op not in cp.ASSIGN_OPS:
            lhs = self.hoist_core_helpers(node.lhs, scope, loc, out)
            rhs = self.hoist_core_helpers(node.rhs, scope, loc, out)
            return node if (lhs, rhs) == (node.lhs, node.rhs) else replace(node, lhs=lhs, rhs=rhs)
        return node

    def _eval__Evaluated(self, node: _Evaluated, scope: Scope):
        return node.value

    def _user_helpers(self, callee: cp.Name, scope: Scope) -> list[Function] | None:
        if len(callee.parts) > 1 and callee.parts[0] not in NAMESPACES:
            return None
        b = scope.lookup(callee.last)
        return b.value if b is not None and b.kind == "funcs" else None

    def _evaluate_or_none(self, node: cp.Call, scope: Scope):
        """The call's value computed at compile time, or None when it cannot be (see attempt)."""
        ok, value = self.attempt(lambda: self.eval(node, scope))
        return value if ok else None

    def attempt(self, run) -> tuple[bool, Any]:
        """(True, run()), or (False, the error) when run() fails: then whatever the attempt changed
        in the lowering's state (names, scalars and arrays a helper assigned, reads noted, pending
        effects, warnings) is undone, so that the caller can try another way."""
        saved = {k: (v, copy.copy(v)) for k, v in self.__dict__.items()
                 if isinstance(v, (list, dict, set)) and k not in _READ_ONLY_STATE}
        diagnostics = list(self.reporter.diagnostics)
        undo: list = []
        outer = self.__dict__.get("_ct_undo")
        self.__dict__["_ct_undo"] = undo
        try:
            return True, run()
        except (LoweringError, cp.ParseError, PtoError) as e:
            for put, old in reversed(undo):
                put(old)
            for container, before in saved.values():
                if isinstance(container, list):
                    container[:] = before
                else:
                    container.clear()
                    container.update(before)
            self.reporter.diagnostics[:] = diagnostics
            return False, e
        finally:
            if outer is not None:
                outer.extend(undo)
            self.__dict__["_ct_undo"] = outer

    def inline_value_call(self, funcs: list[Function], node: cp.Call, scope: Scope, loc: ir.SourceRange,
                          out: list[ir.Stmt]) -> str:
        """Inline a helper used as a value (see hoist_core_helpers); the variable holding its value."""
        fn = self._pick_function(funcs, len(node.args), node.offset)
        if fn.cursor.result_type.get_canonical().kind in (TypeKind.RECORD, TypeKind.LVALUEREFERENCE,
                                                          TypeKind.RVALUEREFERENCE):
            raise self.error(f"'{fn.name}' runs on the core (it cannot be evaluated at compile time) and returns "
                             "a struct or a reference; only helpers returning a scalar are inlined for their value",
                             node.offset)
        result = self._result_variable(fn.name)
        out.append(ir.Assign(result, Const(0), loc))
        out.extend(self.inline_call(funcs, node.callee, node, scope, loc, result))
        return result

    def _result_variable(self, name: str) -> str:
        var = self.unique_name(f"{name}()")
        self._mutables.add(var)
        return var

    def lower_result(self, ret: Cursor, result: str, scope: Scope, out: list[ir.Stmt]) -> ir.Assign:
        """`return value;` in a helper inlined for its value: the value, assigned to `result`."""
        text, off = self.text_of(ret)
        loc = self.range_of(ret, include_semicolon=True)
        node = self.parse(text[len("return"):].rstrip().rstrip(";"), off + len("return"), scope)
        value = self.eval(self.hoist_core_helpers(node, scope, loc, out), scope)
        if not isinstance(value, Expr):
            raise self.error("a helper that runs on the core may return only a scalar here", cursor=ret)
        return ir.Assign(result, value, loc)

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

    @staticmethod
    def _param_values(fn: Function, inner: Scope) -> dict[str, Expr]:
        """What each scalar parameter of a helper holds at this call: parameter name -> the
        caller's value (an expression of the caller's variables, or the variable a reference
        names)."""
        out: dict[str, Expr] = {}
        for p in fn.cursor.get_children():
            if p.kind != CursorKind.PARM_DECL:
                continue
            b = inner.names.get(p.spelling)
            if b is None:
                continue
            if b.kind == "mutable" and isinstance(b.value, str):
                out[p.spelling] = Var(b.value)
            elif b.kind == "value" and isinstance(b.value, Expr):
                out[p.spelling] = b.value
        return out

    def call_value_function(self, funcs: list[Function], callee: cp.Name, node: cp.Call, scope: Scope):
        """A helper used as a value (see consteval): one `return` is inlined as an expression,
        anything else runs at compile time, or, when it issues work, before the statement that uses
        it (effects.call_effectful_helper)."""
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
            if self._pending_effects is None:  # not in a statement: nowhere to run its work
                return self.run_value_function(fn, body, inner, fn.name, node.offset)
            # A failed compile-time run leaves nothing behind (what it assigned through reference
            # parameters, warnings): the helper then runs where the statement does.
            ok, value = self.attempt(lambda: self.run_value_function(fn, body, inner, fn.name, node.offset))
            if ok:
                return value
            failure = value
        try:
            return self.call_effectful_helper(funcs, callee, node, scope)
        except (LoweringError, cp.ParseError, PtoError):
            raise failure from None  # neither way: why it cannot run at compile time

    @staticmethod
    def _pointer_out_args(fn: Function, node: cp.Call, scope: Scope, fsrc: SourceFile) -> dict[int, Binding]:
        """Variables passed to non-const reference parameters (`T *&p`, `uint8_t &flag`, a
        GlobalTensor `G &g` that a TPOP or TALLOC in the callee points at a FIFO slot): the callee
        shares the caller's binding, so what it assigns the caller sees."""
        params = [c for c in fn.cursor.get_children() if c.kind == CursorKind.PARM_DECL]
        shared = {}
        for i, (a, p) in enumerate(zip(node.args, params)):
            if not (isinstance(a, cp.Name) and len(a.parts) == 1):
                continue
            b = scope.lookup(a.parts[0])
            if b is not None and b.kind in ("ptr", "mutable", "gm") and is_mutable_reference(p, fsrc):
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
            elif isinstance(a, Expr) and prologue is not None and self._is_assigned_later(p):
                # A scalar passed by value that the helper assigns (`for (; n > 1; n /= 2)`): a
                # local of the helper, starting at the argument's value.
                var = self.unique_name(f"{p.spelling}@{fn.name}")
                self._mutables.add(var)
                prologue.append(ir.Assign(var, a, self.range_of(p)))
                inner.define(p.spelling, Binding("mutable", var))
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
        if isinstance(a, Closure):
            return Binding("closure", a)
        return Binding("value", a)


def _helper_instance(fn: Function, fsrc: SourceFile, bound: list) -> ir.TemplateInstance | None:
    """The instantiation of a helper template a call inlines: its value parameters' arguments
    spelled in C++ (what `if constexpr` can test inside the helper), "" for an argument that is not
    one known constant (a type, a value known only at run time)."""
    if fn.cursor.kind != CursorKind.FUNCTION_TEMPLATE:
        return None
    body = next((c for c in fn.cursor.get_children() if c.kind == CursorKind.COMPOUND_STMT), None)
    if body is None:
        return None
    params = tuple((kind, name) for kind, name, _ in template_params(fn.cursor, fsrc))
    args = tuple(cpp_text(a) if kind == "value" and isinstance(a, Const) else ""
                 for (kind, _), a in zip(params, bound))
    return ir.TemplateInstance(fn.name, params, args, (body.extent.start.offset, body.extent.end.offset))


def _instance_key(t) -> object:
    """A template argument as it identifies an instantiation (a tile type's spelling aside)."""
    if isinstance(t, ty.TileType):
        return ("tile", t.tile_type, t.dtype, t.rows, t.cols, t.blayout, str(t.valid_rows), str(t.valid_cols),
                t.slayout, t.compact)
    if isinstance(t, Expr):
        return str(t)
    return repr(t)
