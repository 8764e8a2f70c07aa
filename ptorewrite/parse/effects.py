"""Calls inside expressions that issue work: what they run goes before the statement.

An expression may call something that issues instructions or syncs (an SDMA call, parse/sdma.py;
a helper that returns a value, such as `bool ok = CheckBounds(n);` whose body runs a
`pipe_barrier`). While a statement is lowered, such calls append their statements to
`_pending_effects`; `lower_stmt` puts them before the statement (an `if`'s condition is
evaluated once, before either branch; a loop's condition or step is refused). A call on the
right of `&&` / `||`, or in a branch of `?:`, runs only where that operand is evaluated: its
statements are wrapped in an `ir.If` on the left operand (`guard_effects`).

A helper used as a value whose body issues work is inlined like a statement call, its `return
v;` assigning a result variable (and leaving the helper as a plain `return;` does); the
expression reads that variable.
"""

from __future__ import annotations

from itertools import pairwise

from clang.cindex import TypeKind

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Expr, Var
from ptorewrite.analysis.instructions import lookup
from ptorewrite.parse import cparse as cp
from ptorewrite.parse.raw import RAW_INTRINSICS
from ptorewrite.parse.values import Function, Scope

SCALAR_RESULTS = frozenset({
    TypeKind.BOOL, TypeKind.CHAR_U, TypeKind.UCHAR, TypeKind.USHORT, TypeKind.UINT, TypeKind.ULONG,
    TypeKind.ULONGLONG, TypeKind.CHAR_S, TypeKind.SCHAR, TypeKind.SHORT, TypeKind.INT, TypeKind.LONG,
    TypeKind.LONGLONG, TypeKind.FLOAT, TypeKind.DOUBLE, TypeKind.HALF})
WORK_CALLS = frozenset({"set_flag", "wait_flag", "pipe_barrier", "TASSIGN", "SYNCALL", "PtoSetWaitFlag"})


class EffectLowering:
    """Mixin of `Lowering`."""

    _pending_effects: list[ir.Stmt] | None = None

    def guard_effects(self, mark: int, cond: Expr) -> None:
        """Calls lowered since `mark` run only when `cond` holds (the right of `&&`, a branch of `?:`)."""
        pending = self._pending_effects
        if pending is None or len(pending) == mark:
            return
        moved = pending[mark:]
        del pending[mark:]
        loc = moved[0].loc
        pending.append(ir.If(cond, ir.Block(moved, loc, uid=next(self._uid)), None, loc))

    def add_effects(self, stmts: list[ir.Stmt], what: str, offset: int) -> None:
        if self._pending_effects is None:
            raise self.error(f"{what} is not supported here (call it in a statement of its own)", offset)
        self._pending_effects.extend(stmts)

    def helper_issues_work(self, funcs: list[Function]) -> bool:
        """Whether a helper's own text calls an instruction, a sync or a raw intrinsic."""
        cache = self.__dict__.setdefault("_issues_work", {})
        for f in funcs:
            key = f.cursor.hash
            if f.cursor.result_type.get_canonical().kind not in SCALAR_RESULTS:
                cache[key] = False  # (a helper returning a tile or a struct: see call_value_function)
            if key not in cache:
                text, off = self.text_of(f.cursor)
                try:
                    tokens = cp.tokenize(text, off)
                except cp.ParseError:
                    tokens = []
                cache[key] = any(t.kind == "id" and nxt.text in ("(", "<") and (
                    t.text in WORK_CALLS or t.text in RAW_INTRINSICS or lookup(t.text, self.arch) is not None)
                    for t, nxt in pairwise(tokens))
            if cache[key]:
                return True
        return False

    def call_effectful_helper(self, funcs: list[Function], callee: cp.Name, node: cp.Call, scope: Scope) -> Var:
        """`x = Helper(args)` where Helper issues work: inlined before the statement; its value."""
        loc = self.src.range(node.offset, node.offset)
        result = self.unique_name(f"{callee.last}@return")
        self._mutables.add(result)
        stmts = self.inline_call(funcs, callee, node, scope, loc, result)  # `return v;`: calls.lower_result
        # (Every path of a helper that returns a value assigns its result: no initial value, which
        # the lowering would take as known after the call.)
        self.add_effects(stmts, f"a call of '{callee.last}'", node.offset)
        return Var(result)
