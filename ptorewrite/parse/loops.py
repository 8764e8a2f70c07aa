"""Lowering C++ `for` loops to `ir.For`.

A loop over one variable becomes a counted loop (start, stop, step) whenever its increment adds
a fixed amount and its condition compares the variable with a bound: the form the sync planner
reasons about best. Every other one-variable loop becomes a general loop (start, condition,
next value): geometric steps (`*= 4`, `/= 4`, `>>= 1`), conditions written as expressions of the
variable (`blockLen * 4 <= n`), and loops whose body assigns the variable.

The variable may be declared in the loop (`for (int i = 0; ...)`), assigned by it
(`for (i = get_block_idx(); ...)`), or only stepped by it (`for (; c; blockLen *= 4)`); in the
last two cases it lives on after the loop with the value that ended it.
"""

from __future__ import annotations

from clang.cindex import Cursor

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, Var, binop, unop
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import types as ty

# Compound assignments that give the variable's next value from its current one.
_UPDATE_OPS = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "<<=": "<<", ">>=": ">>",
               "&=": "&", "|=": "|", "^=": "^"}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}


class LoopLowering:
    """The `for` part of `lower.Lowering` (mixed in)."""

    def lower_for(self, c: Cursor, scope) -> ir.For:
        from ptorewrite.parse.lower import Binding, Scope, matching_paren, split_top_level

        text, off = self.text_of(c)
        lp = text.index("(")
        header = text[lp + 1:matching_paren(text, lp)]
        pieces = split_top_level(header, ";")
        if len(pieces) != 3:
            raise self.error("range-based for loops are not supported", cursor=c)
        (init_t, init_o), (cond_t, cond_o), (inc_t, inc_o) = [(s, off + lp + 1 + o) for s, o in pieces]
        if not cond_t.strip():
            raise self.error("a loop without a condition is not supported; loops must end by their condition",
                             cursor=c)
        if not inc_t.strip():
            raise self.error("a loop without an increment is not supported; step the loop variable in the "
                             "loop header", cursor=c)
        inner = Scope(scope)
        update = self.parse(inc_t, inc_o, inner)
        if init_t.strip():
            var, start, declared = self._loop_init(init_t, init_o, inner, c)
        else:
            var, start, declared = self._stepped_var(update, c), None, False
        if declared:
            ivar = self.unique_loop_var(var)
            inner.define(var, Binding("value", Var(ivar)))
        else:
            # An existing variable: it must be a mutable local (one the function assigns).
            b = scope.lookup(var)
            if b is None or b.kind != "mutable":
                raise self.error(f"the loop steps '{var}', which is not a local scalar variable", cursor=c)
            ivar = b.value
            if start is None:
                start = Var(ivar)  # `for (; ...)`: from its current value
        cond = self.parse(cond_t, cond_o, inner)
        counted = self._counted(cond, update, var, inner)
        if counted is not None:
            stop, inclusive, step, _ = counted
            trips = ir.For(ivar, start, stop, step, ir.Block([]), self.range_of(c), inclusive=inclusive).trip_count()
        else:
            stop = step = None
            inclusive, trips = False, None
        body, known_before = self._lower_loop_body(c, inner, ivar, var, start, step, trips)
        loop = self._make_for(c, ivar, start, counted, cond, update, var, inner, body, declared)
        if loop.keeps_var:
            exit_value = self.exit_value(loop, known_before)
            if exit_value is not None:
                self.known[ivar] = exit_value
        return loop

    def _make_for(self, c: Cursor, ivar: str, start: Expr, counted, cond: cp.Node, update: cp.Node, var: str,
                  inner, body: ir.Block, declared: bool) -> ir.For:
        loc = self.range_of(c)
        if counted is not None:
            stop, inclusive, step, op = counted
        if counted is not None and not self._body_changes(body, {ivar} | step.free_vars()):
            sv = step.const_value()
            if sv is not None and op != "!=" and (sv > 0) == (op in (">", ">=")):
                raise self.error("loop step goes away from the bound; the loop would not terminate", cursor=c)
            if sv == 0:
                raise self.error("loop step is 0; the loop would not terminate", cursor=c)
            return ir.For(ivar, start, stop, step, body, loc, inclusive=inclusive, cpp_var=var,
                          keeps_var=not declared)
        return ir.For(ivar, start, None, None, body, loc, cpp_var=var, cond=self.scalar(cond, inner),
                      update=self._next_value(update, var, inner, c), keeps_var=not declared)

    def _lower_loop_body(self, c: Cursor, inner, ivar: str, var: str, start: Expr, step: Expr | None,
                         trips: int | None) -> tuple[ir.Block, dict[str, Expr]]:
        """The lowered body, and the values known before the loop."""
        body_cursor = list(c.get_children())[-1]
        self._loop_vars.append(ivar)
        self._loop_ids.append(next(self._loop_serial))
        self._loops.append((ivar, start, step, trips, var, len(self._stack)))
        before = dict(self.known)
        self.known.clear()  # nothing is assumed about values the body may change in an earlier iteration
        try:
            body = self._lower_body(body_cursor, inner)
        finally:
            self._loop_vars.pop()
            self._loop_ids.pop()
            self._loops.pop()
        self.forget_assigned(before, [body])
        self.known.pop(ivar, None)
        return body, before

    @staticmethod
    def _body_changes(body: ir.Block, names: set[str]) -> bool:
        """The body assigns one of `names` (then the counted form, which evaluates the step once
        and keeps its own copy of the variable, would not be C's loop)."""
        return any(isinstance(s, ir.Assign) and s.var in names or isinstance(s, ir.For) and s.keeps_var
                   and s.var in names for s in ir.walk(body))

    def _loop_init(self, text: str, offset: int, scope, c: Cursor) -> tuple[str, Expr, bool]:
        """(variable, initial value, declared here)."""
        p = self.parser(text, offset, scope)
        type_words = cp.BUILTIN_TYPE_WORDS | set(ty.DTYPE_NAMES) | cp.QUALIFIER_WORDS
        # `int i = 0`, `uint32_t i{0}`, or `T i = ...` with a user type name (a second name follows).
        declared = p.peek() is not None and (p.peek().text in type_words or
                                             (p.peek(1) is not None and p.peek(1).kind == "id"))
        if declared:
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
        if p.at(","):
            raise self.error("a loop over several variables is not supported", p.peek().offset)
        return name_tok.text, start, declared

    def _stepped_var(self, update: cp.Node, c: Cursor) -> str:
        """The variable a loop with an empty init-statement steps."""
        target = update.operand if isinstance(update, cp.Unary) else update.lhs if isinstance(update, cp.Binary) \
            and update.op in cp.ASSIGN_OPS else None
        if isinstance(target, cp.Name) and len(target.parts) == 1:
            return target.last
        raise self.error("the loop's increment must assign one variable", cursor=c)

    def _counted(self, cond: cp.Node, update: cp.Node, var: str, scope) -> tuple[Expr, bool, Expr, str] | None:
        """(stop, inclusive, step, comparison) when the loop is `var <op> bound` stepped by a fixed amount."""
        def is_var(n):
            return isinstance(n, cp.Name) and n.parts == (var,)

        if not (isinstance(cond, cp.Binary) and cond.op in _FLIPPED):
            return None
        lhs, rhs, op = cond.lhs, cond.rhs, cond.op
        if is_var(rhs) and not is_var(lhs):
            lhs, rhs, op = rhs, lhs, _FLIPPED[op]
        if not is_var(lhs) or self._mentions(rhs, var):
            return None
        step = None
        if isinstance(update, cp.Unary) and update.op in ("++", "--") and is_var(update.operand):
            step = Const(1 if update.op == "++" else -1)
        elif isinstance(update, cp.Binary) and is_var(update.lhs) and not self._mentions(update.rhs, var):
            if update.op in ("+=", "-="):
                s = self.scalar(update.rhs, scope)
                step = s if update.op == "+=" else unop("-", s)
        elif isinstance(update, cp.Binary) and is_var(update.lhs) and update.op == "=" and \
                isinstance(update.rhs, cp.Binary) and update.rhs.op in "+-" and is_var(update.rhs.lhs) and \
                not self._mentions(update.rhs.rhs, var):
            s = self.scalar(update.rhs.rhs, scope)
            step = s if update.rhs.op == "+" else unop("-", s)
        if step is None:
            return None
        return self.scalar(rhs, scope), op in ("<=", ">="), step, op

    def _next_value(self, update: cp.Node, var: str, scope, c: Cursor) -> Expr:
        """The variable's value after the increment, as an expression of its current value."""
        cur = self.scalar(cp.Name(update.offset, (var,)), scope)
        if isinstance(update, cp.Unary) and update.op in ("++", "--"):
            return binop("+" if update.op == "++" else "-", cur, Const(1))
        if isinstance(update, cp.Binary) and update.op in _UPDATE_OPS:
            return binop(_UPDATE_OPS[update.op], cur, self.scalar(update.rhs, scope))
        if isinstance(update, cp.Binary) and update.op == "=":
            return self.scalar(update.rhs, scope)
        raise self.error(f"the loop's increment must assign '{var}'", cursor=c)

    @staticmethod
    def _mentions(node: cp.Node, var: str) -> bool:
        if isinstance(node, cp.Name):
            return node.parts == (var,)
        return any(LoopLowering._mentions(v, var) for v in vars(node).values() if isinstance(v, cp.Node)) or \
            any(LoopLowering._mentions(x, var) for v in vars(node).values() if isinstance(v, tuple)
                for x in v if isinstance(x, cp.Node))
