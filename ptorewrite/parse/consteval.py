"""Compile-time values: scalar arrays, value helpers run by an interpreter, and the values that
mutable scalars are known to hold while lowering.

* A **scalar array** (`int32_t a[15] = {0};`, `constexpr int s[5] = {...};`) is tracked while
  lowering: element writes with a constant index where the declaration runs (no loop or run-time
  branch in between) update it; reads with a constant index give the element, reads with a
  run-time index a selection over the elements.
* A **value helper** called in an expression (`CeilDiv(a, b)`, pto-isa top-k's `FillMrgArray`)
  is inlined as an expression when its body is one `return`; otherwise its statements run here,
  at compile time: declarations, assignments (also `a[n++] = i`), if, for, while, break,
  continue and return, on constant values. Arrays and structs passed to it are shared, so it can
  fill them. An `if` on a run-time value runs both branches and merges what they assign into
  selections on the condition; a return in such a branch makes the rest of the helper
  conditional (a branch that breaks or continues is refused); any other control flow that
  depends on a run-time value is refused with the value's name.
* **Known values**: a mutable scalar assigned a constant keeps that value for compile-time use
  until it may change: a loop forgets what its body assigns (and nothing is assumed inside the
  body), a run-time branch keeps only what both paths agree on. A loop whose control is
  constant (`for (; blockLen * 4 <= 256; blockLen *= 4)`) is run to find the value its variable
  leaves with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clang.cindex import Cursor, CursorKind, StorageClass

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, Var, binop, select, unop
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import types as ty
from ptorewrite.parse.cursor_text import matching_paren, split_top_level
from ptorewrite.parse.values import Binding, RecordValue, Scope

# Iterations a compile-time loop may run before it is taken for an endless one.
MAX_STEPS = 1_000_000
MAX_SELECT = 64  # elements a run-time index may choose among


# Builtins that only report the core's status (instruction-cache preload in progress).
STATUS_QUERIES = frozenset({"get_icache_prl_st"})


@dataclass(eq=False)
class ScalarArray:
    name: str
    dtype: str
    elems: list[Expr]
    level: tuple[int, int]  # control level of the declaration


_NO_RETURN = object()


class _Return(Exception):
    def __init__(self, value):
        super().__init__()
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "<<=": "<<", ">>=": ">>",
             "&=": "&", "|=": "|", "^=": "^"}


class ConstEvaluation:
    """Mixed into `lower.Lowering`."""

    def _eval__ConstNode(self, node: _ConstNode, scope):
        return node.value

    # -- known values of mutable scalars

    @property
    def known(self) -> dict[str, Expr]:
        k = self.__dict__.get("_known")
        if k is None:
            k = self.__dict__["_known"] = {}
        return k

    def with_known(self, e: Expr) -> Expr:
        return e.subst(self.known) if self.known and e.free_vars() & self.known.keys() else e

    def note_assign(self, s: ir.Assign) -> None:
        v = self.with_known(s.value)
        if isinstance(v, Const):
            self.known[s.var] = v
        else:
            self.known.pop(s.var, None)

    def forget_assigned(self, before: dict[str, Expr], stmts) -> None:
        """After a loop: what held before it and is not assigned in it still holds."""
        assigned = {s.var for st in stmts for s in ir.walk(st) if isinstance(s, (ir.Assign, ir.For))}
        self.known.clear()
        self.known.update({k: v for k, v in before.items() if k not in assigned})

    def merge_known(self, a: dict[str, Expr], b: dict[str, Expr]) -> None:
        """After a run-time branch: what both paths agree on."""
        self.known.clear()
        self.known.update({k: v for k, v in a.items() if b.get(k) == v})

    def exit_value(self, loop: ir.For, before: dict[str, Expr]) -> Const | None:
        """The value a loop's variable leaves with, when its control is constant and its body does
        not assign the variable."""
        assigned = {s.var for s in ir.walk(loop.body) if isinstance(s, (ir.Assign, ir.For))}
        control = set().union(*(e.free_vars() for e in loop.control_exprs()))
        if assigned & (control | {loop.var}):
            return None  # the body steers the loop: its exit depends on what the body computes
        env = {k: v.value for k, v in before.items()}
        start = loop.start.subst(before)
        if not isinstance(start, Const):
            return None
        v = start.value
        try:
            for _ in range(MAX_STEPS):
                env[loop.var] = v
                if loop.counted:
                    stop, step = loop.stop.eval(env), loop.step.eval(env)
                    go = (v <= stop if loop.inclusive else v < stop) if step > 0 else \
                        (v >= stop if loop.inclusive else v > stop)
                    if not go:
                        return Const(v)
                    v = v + step
                else:
                    if not loop.cond.eval(env):
                        return Const(v)
                    nxt = loop.update.eval(env)
                    if nxt == v:
                        return None
                    v = nxt
        except (KeyError, ZeroDivisionError, TypeError):
            return None
        return None

    # -- scalar arrays

    def declare_array(self, decl, dtype: str, scope, d: Cursor, length: int | None = None):
        """`T a[n] = {...};`, or a declaration through an array alias of `length` elements."""
        items = []
        if decl.init:
            init = decl.init[0] if decl.init_style == "=" else cp.InitList(decl.name_offset, tuple(decl.init))
            items = list(init.items) if isinstance(init, cp.InitList) else [init]
        if length is not None:
            n = length
        elif isinstance(decl.array, cp.InitList):  # `int a[] = {...}`: sized by its initializer
            n = len(items)
        else:
            n = self.with_known(self.scalar(decl.array, scope)).const_value()
        if not isinstance(n, int) or n <= 0:
            raise self.error("a scalar array needs a positive compile-time length", decl.name_offset)
        if len(items) > n:
            raise self.error(f"{len(items)} initializers for an array of {n}", decl.name_offset)
        elems = [self.scalar(x, scope) for x in items] + [Const(0)] * (n - len(items))
        scope.define(decl.name, Binding("array", ScalarArray(decl.name, dtype, elems, self._control_level())))

    def array_element(self, arr: ScalarArray, idx: Expr, offset: int) -> Expr:
        idx = self.with_known(idx)
        c = idx.const_value()
        if c is not None:
            if not isinstance(c, int) or not 0 <= c < len(arr.elems):
                raise self.error(f"index {c} is out of range for '{arr.name}[{len(arr.elems)}]'", offset)
            return arr.elems[c]
        if len(arr.elems) > MAX_SELECT:
            raise self.error(f"'{arr.name}' has {len(arr.elems)} elements; a run-time index selects among at "
                             f"most {MAX_SELECT}", offset)
        out = arr.elems[-1]
        for i in range(len(arr.elems) - 2, -1, -1):
            out = select(binop("==", idx, Const(i)), arr.elems[i], out)
        return out

    def store_element(self, arr: ScalarArray, idx: Expr, value: Expr, offset: int) -> None:
        """A write in the lowered kernel (not in a compile-time helper)."""
        c = self.with_known(idx).const_value()
        if arr.level != self._control_level() or c is None:
            raise self.error(f"'{arr.name}' is written inside a loop, under a run-time condition or at a run-time "
                             "index; only writes that run once, at a constant index, are supported (or fill it in "
                             "a constexpr helper)", offset)
        if not isinstance(c, int) or not 0 <= c < len(arr.elems):
            raise self.error(f"index {c} is out of range for '{arr.name}[{len(arr.elems)}]'", offset)
        arr.elems[c] = value

    # -- the compile-time interpreter

    def run_value_function(self, fn, body: Cursor, inner, name: str, offset: int):
        """Run a helper's statements at compile time; its return value."""
        self.__dict__["_ct_depth"] = self.__dict__.get("_ct_depth", 0) + 1
        # Returns taken under a run-time condition so far: (condition, value), in order; `live`
        # is the condition under which the helper is still running (None: always), `path` the
        # run-time branch conditions of the statement being run.
        saved = self.__dict__.get("_ct_returns"), self.__dict__.get("_ct_live"), self.__dict__.get("_ct_path")
        self.__dict__["_ct_returns"], self.__dict__["_ct_live"], self.__dict__["_ct_path"] = [], None, None
        try:
            self._ct_block(list(body.get_children()), inner, name)
        except _Return as r:
            value = r.value
            for c, v in reversed(self.__dict__["_ct_returns"]):
                chosen = _select_value(c, v, value)
                if chosen is None:
                    raise self.error(f"'{name}' is evaluated at compile time, but it returns something other than "
                                     "a scalar or a struct of scalars under a run-time condition", offset) from None
                value = chosen
            return value
        finally:
            self.__dict__["_ct_depth"] -= 1
            self.__dict__["_ct_returns"], self.__dict__["_ct_live"], self.__dict__["_ct_path"] = saved
        raise self.error(f"'{name}' is used as a value but ends without returning one", offset)

    @property
    def compile_time(self) -> bool:
        return self.__dict__.get("_ct_depth", 0) > 0

    def _ct_block(self, stmts: list[Cursor], scope, name: str) -> None:
        inner = Scope(scope)
        for c in stmts:
            self._ct_stmt(c, inner, name)

    def _ct_cond(self, c: Cursor, scope, name: str) -> bool:
        v = self.with_known(self.scalar(self.parse(*self.text_of(c), scope), scope))
        if not isinstance(v, Const):
            free = ", ".join(sorted(v.free_vars())) or str(v)
            raise self.error(f"'{name}' is evaluated at compile time, but its control flow depends on the "
                             f"run-time value(s) {free}", cursor=c)
        return bool(v.value)

    def _ct_stmt(self, c: Cursor, scope, name: str) -> None:
        k = c.kind
        if k == CursorKind.COMPOUND_STMT:
            self._ct_block(list(c.get_children()), scope, name)
        elif k == CursorKind.DECL_STMT:
            decls = list(c.get_children())
            for d in decls:
                self._ct_decl(d, scope, c if len(decls) > 1 else None)
        elif k == CursorKind.RETURN_STMT:
            kids = list(c.get_children())
            if not kids:
                raise _Return(None)
            text, off = self.text_of(c)
            raise _Return(self.eval(self.parse(text[len("return"):].rstrip().rstrip(";"), off + len("return"),
                                               scope), scope))
        elif k == CursorKind.IF_STMT:
            kids = list(c.get_children())
            cond = self.with_known(self.scalar(self.parse(*self.text_of(kids[0]), scope), scope))
            if not isinstance(cond, Const):
                self._ct_if_converted(cond, kids, scope, name)
            elif cond.value:
                self._ct_stmt(kids[1], Scope(scope), name)
            elif len(kids) > 2:
                self._ct_stmt(kids[2], Scope(scope), name)
        elif k == CursorKind.FOR_STMT:
            self._ct_for(c, scope, name)
        elif k == CursorKind.SWITCH_STMT:
            self._ct_switch(c, scope, name)
        elif k in (CursorKind.WHILE_STMT, CursorKind.DO_STMT):
            kids = list(c.get_children())
            cond, body = (kids[0], kids[1]) if k == CursorKind.WHILE_STMT else (kids[1], kids[0])
            first = k == CursorKind.DO_STMT
            for _ in range(MAX_STEPS):
                if not first and not self._ct_cond(cond, scope, name):
                    return
                first = False
                try:
                    self._ct_stmt(body, Scope(scope), name)
                except _Break:
                    return
                except _Continue:
                    pass
            raise self.error(f"a loop in '{name}' runs more than {MAX_STEPS} times at compile time", cursor=c)
        elif k == CursorKind.BREAK_STMT:
            raise _Break()
        elif k == CursorKind.CONTINUE_STMT:
            raise _Continue()
        elif k in (CursorKind.NULL_STMT, CursorKind.STATIC_ASSERT):
            pass
        elif k == CursorKind.ASM_STMT:
            for out_name in self.compiler_barrier(c):  # a register read: a value known only at run time
                value = Var(self.unique_name(f"{out_name}@asm"))
                self._ct_store(cp.Name(c.extent.start.offset, (out_name,)), value, scope)
        elif k in (CursorKind.TYPE_ALIAS_DECL, CursorKind.TYPEDEF_DECL):
            self.lower_decl(c, scope, [])
        elif self._no_effect(c):
            pass  # `dsb(DSB_DDR);`
        else:
            text, off = self.text_of(c)
            self._ct_effect(self.parse(text, off, scope), scope)

    def _ct_switch(self, c: Cursor, scope, name: str) -> None:
        """`switch` at compile time: from the case whose value matches (else `default`) on, until a
        `break` (a `return` leaves the function)."""
        kids = list(c.get_children())
        cond = self.with_known(self.scalar(self.parse(*self.text_of(kids[0]), scope), scope))
        body = kids[-1]
        flat = []  # (labels, statement): a case's statement and those after it
        for st in (list(body.get_children()) if body.kind == CursorKind.COMPOUND_STMT else [body]):
            labels = []
            while st.kind in (CursorKind.CASE_STMT, CursorKind.DEFAULT_STMT):
                parts = list(st.get_children())
                labels.append(parts[0] if st.kind == CursorKind.CASE_STMT else None)
                st = parts[-1]
            flat.append((labels, st))
        inner = Scope(scope)
        default = next((i for i, (labels, _) in enumerate(flat) if any(lab is None for lab in labels)), None)

        def run_from(start: int | None) -> None:
            if start is None:
                return
            try:
                for _, st in flat[start:]:
                    self._ct_stmt(st, inner, name)
            except _Break:
                pass

        if isinstance(cond, Const):
            start = next((i for i, (labels, _) in enumerate(flat) for lab in labels
                          if lab is not None and self._ct_same_case(cond, lab, scope)), None)
            run_from(start if start is not None else default)
            return
        # On a run-time value: an if-converted chain, one test per case label in order.
        cases = [(i, lab) for i, (labels, _) in enumerate(flat) for lab in labels if lab is not None]

        def chain(j: int) -> None:
            if j == len(cases):
                run_from(default)
                return
            i, lab = cases[j]
            v = self.with_known(self.scalar(self.parse(*self.text_of(lab), scope), scope))
            test = binop("==", cond, v)
            self._ct_if_converted(test, [lab], scope, name, run=(lambda: run_from(i), lambda: chain(j + 1)))

        chain(0)

    def _ct_same_case(self, cond: Const, label: Cursor, scope) -> bool:
        v = self.with_known(self.scalar(self.parse(*self.text_of(label), scope), scope))
        a, b = cond.value, v.const_value() if isinstance(v, Expr) else v
        if isinstance(a, str) and isinstance(b, str):  # enumerators, however qualified
            return a.split("::")[-2:] == b.split("::")[-2:] or a.split("::")[-1] == b.split("::")[-1]
        if isinstance(a, str) != isinstance(b, str):
            a, b = (self.enumerator_value(x, label.extent.start.offset) if isinstance(x, str) else x for x in (a, b))
        return a == b

    def compiler_barrier(self, c: Cursor, scope=None) -> list[str]:
        """Assembly statements that touch no buffer and order no pipe: an empty one (`__asm__
        __volatile__("" ::: "memory")`, which only keeps the compiler from moving memory accesses
        across it, as the model never does), `nop`, and a system-register read into a scalar
        (`asm volatile("MOV %0, SYS_CNT\\n" : "+l"(t))`, profiling). Returns the names of the
        scalars such a read sets (to values known only at run time)."""
        text, _ = self.text_of(c)
        lp = text.find("(")
        inner = text[lp + 1:text.rfind(")")] if lp >= 0 else ""
        parts = split_top_level(inner, ":")
        template = parts[0][0].strip() if parts else ""
        outputs = [o.strip() for o, _ in split_top_level(parts[1][0], ",")] if len(parts) > 1 else []
        outputs = [o for o in outputs if o]
        names = []
        for o in outputs:
            m = re.fullmatch(r'"[=+&a-zA-Z]*"\s*\(\s*([A-Za-z_]\w*)\s*\)', o)
            if m is None:
                break
            names.append(m.group(1))
        body = template.strip('"').replace("\\n", "").strip()
        register_read = re.fullmatch(r"MOV\s+%0\s*,\s*[A-Z_][A-Z0-9_]*", body) is not None
        if len(parts) > 2 and any(x.strip() for x, _ in parts[2:3]):
            names = None  # inputs: it computes from the kernel's values
        if names is None or len(names) != len(outputs) or not (
                (body in ("", "nop") and not outputs) or (register_read and len(names) == 1)):
            raise self.error("inline assembly is not supported (only an empty compiler barrier, `nop`, and a "
                             "system-register read such as `MOV %0, SYS_CNT` are)", cursor=c)
        return names

    def _no_effect(self, c: Cursor) -> bool:
        """A statement that changes no value and moves no data: empty assembly statements and calls
        of the device builtins the model ignores (cache maintenance such as dcci, dsb)."""
        from ptorewrite.parse.lower import IGNORED_BUILTINS

        k = c.kind
        if k == CursorKind.COMPOUND_STMT:
            return all(self._no_effect(x) for x in c.get_children())
        if k in (CursorKind.NULL_STMT, CursorKind.ASM_STMT):
            return k == CursorKind.NULL_STMT or self._is_barrier_text(c)
        if k == CursorKind.WHILE_STMT:  # a spin-wait on a status query
            cond, body = list(c.get_children())
            return self._status_query(cond) and self._no_effect(body)
        if k == CursorKind.CALL_EXPR:
            return c.spelling in IGNORED_BUILTINS
        if k == CursorKind.UNEXPOSED_EXPR:
            kids = list(c.get_children())
            return len(kids) == 1 and self._no_effect(kids[0])
        return False

    def _is_barrier_text(self, c: Cursor) -> bool:
        try:
            return not self.compiler_barrier(c)
        except Exception:  # noqa: BLE001 - not an empty barrier
            return False

    def _status_query(self, c: Cursor) -> bool:
        """A condition that only asks the core's status (`get_icache_prl_st()`): no effect."""
        while c.kind == CursorKind.UNEXPOSED_EXPR and len(list(c.get_children())) == 1:
            c = next(iter(c.get_children()))
        return c.kind == CursorKind.CALL_EXPR and c.spelling in STATUS_QUERIES

    def _ct_if_converted(self, cond: Expr, kids: list[Cursor], scope, name: str, run=None) -> None:
        """An `if` on a run-time value in a compile-time helper: both branches run, and every
        variable, array element or struct member either assigns becomes a selection on the
        condition. A branch that returns makes the rest of the helper run only when it did not
        (later assignments keep the old value where it did, and the helper's value selects the
        return taken); a branch that breaks or continues is refused."""
        live, path = self.__dict__.get("_ct_live"), self.__dict__.get("_ct_path")
        returns = self.__dict__.setdefault("_ct_returns", [])
        first_return = len(returns)
        outcomes, returned = [], []
        for branch, taken in ((kids[1] if len(kids) > 1 else None, cond), (kids[2] if len(kids) > 2 else None,
                                                                              unop("!", cond))):
            journal: list = []
            self.__dict__.setdefault("_ct_journals", []).append(journal)
            self.__dict__["_ct_path"] = taken if path is None else binop("&&", path, taken)
            value = _NO_RETURN
            try:
                if run is not None:  # the branches as calls (a switch on a run-time value)
                    run[0 if taken is cond else 1]()
                elif branch is not None:
                    self._ct_stmt(branch, Scope(scope), name)
            except _Return as r:
                value = r.value
            except (_Break, _Continue):
                raise self.error(f"'{name}' is evaluated at compile time, but it leaves a loop in a branch on the "
                                 f"run-time value(s) {', '.join(sorted(cond.free_vars())) or cond}",
                                 cursor=branch) from None
            finally:
                self.__dict__["_ct_journals"].pop()
                self.__dict__["_ct_path"], self.__dict__["_ct_live"] = path, live
            returned.append(value)
            after = {}
            for key, put, old in reversed(journal):  # undo, remembering what the branch left
                after.setdefault(key, (put, key[2]()))
                put(old)
            outcomes.append(after)
        for key in set(outcomes[0]) | set(outcomes[1]):
            put, _ = (outcomes[0].get(key) or outcomes[1][key])
            old = key[2]()
            then_v = outcomes[0][key][1] if key in outcomes[0] else old
            else_v = outcomes[1][key][1] if key in outcomes[1] else old
            if not (isinstance(then_v, Expr) and isinstance(else_v, Expr)):
                if then_v is else_v:
                    continue
                raise self.error(f"'{name}' is evaluated at compile time, but a branch on a run-time value "
                                 "assigns something other than a scalar", cursor=kids[0])
            self._ct_put(key, put, select(cond, then_v, else_v))
        then_r, else_r = returned
        if then_r is not _NO_RETURN and else_r is not _NO_RETURN:
            chosen = _select_value(cond, then_r, else_r)
            if chosen is None:
                raise self.error(f"'{name}' is evaluated at compile time, but it returns something other than a "
                                 "scalar or a struct of scalars under a run-time condition", cursor=kids[0])
            raise _Return(chosen)  # both paths leave here
        for taken, value in ((cond, then_r), (unop("!", cond), else_r)):
            if value is not _NO_RETURN:
                returns.append((taken if path is None else binop("&&", path, taken), value))
        # What runs from here on runs only where no return was taken in this if.
        for c, _ in returns[first_return:]:
            live = unop("!", c) if live is None else binop("&&", live, unop("!", c))
        self.__dict__["_ct_live"] = live

    def _ct_put(self, key, put, value) -> None:
        """Store `value` through `put`, journaled for an enclosing run-time `if` (see above);
        `key` = (identity, part, getter of the current value)."""
        old = key[2]()
        for journal in self.__dict__.get("_ct_journals", ())[-1:]:
            journal.append((key, put, old))
        undo = self.__dict__.get("_ct_undo")
        if undo is not None:  # a compile-time attempt that may be undone (calls.hoist_core_helpers)
            undo.append((put, old))
        live = self.__dict__.get("_ct_live")
        if live is not None and isinstance(value, Expr) and isinstance(old, Expr):
            value = select(live, value, old)  # after a return taken under a run-time condition
        put(value)

    def _ct_decl(self, d: Cursor, scope, group) -> None:
        if d.kind != CursorKind.VAR_DECL:
            self.lower_decl(d, scope, [], group)
            return
        if d.storage_class == StorageClass.STATIC and self._is_assigned_later(d):
            raise self.error("a static local keeps its value between calls; this helper is not run at compile "
                             "time", cursor=d)
        decl = self.parse_var_decl(d, scope, group)
        t = self.resolve_type(decl.type_node, scope) if decl.type_node else None
        if decl.array is not None and (t is None or isinstance(t, ty.ScalarType)):
            self.declare_array(decl, t.dtype if t else "int32", scope, d)
            return
        if t is None or isinstance(t, ty.ScalarType):
            v = self._ct_effect(decl.init[0], scope) if decl.init else Const(0)
            scope.define(decl.name, Binding("value", v))
            return
        self.lower_decl(d, scope, [], group)

    def _ct_effect(self, node: cp.Node, scope):
        """An expression that may assign (`x = y`, `n++`, `a[i++] = v`): run it; its value."""
        if isinstance(node, cp.Binary) and node.op in cp.ASSIGN_OPS:
            value = self._ct_effect(node.rhs, scope)
            if node.op != "=":
                value = binop(_COMPOUND[node.op], self.scalar(node.lhs, scope), value)
            self._ct_store(node.lhs, value, scope)
            return value
        if isinstance(node, cp.Unary) and node.op in ("++", "--"):
            old = self.scalar(node.operand, scope)
            new = binop("+" if node.op == "++" else "-", old, Const(1))
            self._ct_store(node.operand, new, scope)
            return old if node.postfix else new
        if isinstance(node, cp.Binary) and node.op == ",":
            self._ct_effect(node.lhs, scope)
            return self._ct_effect(node.rhs, scope)
        return self.eval(self._ct_prepare(node, scope), scope)

    def _ct_prepare(self, node: cp.Node, scope) -> cp.Node:
        """Side effects inside subscripts (`a[n++]`) run first; the node that remains is pure."""
        if isinstance(node, cp.Index):
            idx = self._ct_effect(node.index, scope)
            out = cp.Index(node.offset, self._ct_prepare(node.base, scope), _ConstNode(node.index.offset, idx))
            if node in self._node_ends:  # keeps its source text (the name of a value it reads)
                self._node_ends[out] = self._node_ends[node]
            return out
        return node

    def _ct_store(self, target: cp.Node, value, scope) -> None:
        if isinstance(target, cp.Name) and len(target.parts) == 1:
            b = scope.lookup(target.last)
            if b is not None and b.kind == "value":
                self._ct_put((id(b), None, lambda: b.value), lambda v: setattr(b, "value", v), value)
                return
            raise self.error(f"'{target.last}' cannot be assigned in a compile-time helper", target.offset)
        if isinstance(target, cp.Index):
            arr = self.eval(target.base, scope)
            idx = self._ct_effect(target.index, scope)
            if isinstance(arr, ScalarArray):
                c = self.with_known(idx).const_value() if isinstance(idx, Expr) else None
                if not isinstance(c, int) or not 0 <= c < len(arr.elems):
                    raise self.error(f"index {idx} is out of range for '{arr.name}[{len(arr.elems)}]'", target.offset)
                self._ct_put((id(arr), c, lambda: arr.elems[c]), lambda v: arr.elems.__setitem__(c, v), value)
                return
        if isinstance(target, cp.Member):  # `s.f = v`, `p->f = v` of a struct the kernel holds
            rec = self.eval(target.base, scope)
            if isinstance(rec, RecordValue) and target.name in rec.fields:
                f = target.name
                self._ct_put((id(rec), f, lambda: rec.fields[f]), lambda v: rec.fields.__setitem__(f, v), value)
                return
        raise self.error("this assignment is not supported in a compile-time helper", target.offset)

    def _ct_for(self, c: Cursor, scope, name: str) -> None:
        text, off = self.text_of(c)
        lp = text.index("(")
        pieces = split_top_level(text[lp + 1:matching_paren(text, lp)], ";")
        if len(pieces) != 3:
            raise self.error("range-based for loops are not supported", cursor=c)
        (init_t, init_o), (cond_t, cond_o), (inc_t, inc_o) = [(s, off + lp + 1 + o) for s, o in pieces]
        inner = Scope(scope)
        kids = list(c.get_children())
        first = kids[0] if kids else None
        if init_t.strip():
            if first is not None and first.kind == CursorKind.DECL_STMT:
                self._ct_stmt(first, inner, name)  # the variable lives in the loop's scope
            else:
                self._ct_effect(self.parse(init_t, init_o, inner), inner)
        body = kids[-1]
        for _ in range(MAX_STEPS):
            if cond_t.strip():
                v = self.with_known(self.scalar(self.parse(cond_t, cond_o, inner), inner))
                if not isinstance(v, Const) and self._no_effect(body):
                    return  # e.g. a loop of cache maintenance calls: whatever its trip count, it changes nothing
                if not isinstance(v, Const):
                    raise self.error(f"'{name}' is evaluated at compile time, but its loop condition depends on "
                                     f"the run-time value(s) {', '.join(sorted(v.free_vars()))}", cursor=c)
                if not v.value:
                    return
            try:
                self._ct_stmt(body, Scope(inner), name)
            except _Break:
                return
            except _Continue:
                pass
            if inc_t.strip():
                self._ct_effect(self.parse(inc_t, inc_o, inner), inner)
        raise self.error(f"a loop in '{name}' runs more than {MAX_STEPS} times at compile time", cursor=c)


@dataclass(frozen=True)
class _ConstNode(cp.Node):
    """An already evaluated subexpression."""

    value: Expr


def _select_value(cond: Expr, a, b):
    """`cond ? a : b` for scalars, and member by member for structs of one type; None otherwise."""
    if isinstance(a, Expr) and isinstance(b, Expr):
        return select(cond, a, b)
    if isinstance(a, RecordValue) and isinstance(b, RecordValue) and a.type == b.type:
        fields = {}
        for k in a.fields:
            v = _select_value(cond, a.fields[k], b.fields.get(k))
            if v is None:
                return None
            fields[k] = v
        return RecordValue(a.type, fields)
    if a is b:
        return a
    return None
