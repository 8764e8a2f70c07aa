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

from clang.cindex import Cursor, CursorKind

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, Var, binop, cpp_text, select, unop
from ptorewrite.parse import cparse as cp
from ptorewrite.parse import types as ty
from ptorewrite.parse.cursor_text import matching_paren, split_top_level
from ptorewrite.parse.phase_use import needs_constant_phase
from ptorewrite.parse.values import Binding, Closure, LaneContext, MultiBufferLoop, Scope

# Compound assignments that give the variable's next value from its current one.
_UPDATE_OPS = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "<<=": "<<", ">>=": ">>",
               "&=": "&", "|=": "|", "^=": "^"}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}


class LoopLowering:
    """The `for` and `MultiBuffered` part of `lower.Lowering` (mixed in)."""

    def lower_for(self, c: Cursor, scope) -> ir.For:
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

    def lower_while(self, c: Cursor, scope) -> ir.For:
        """`while (cond) body`: a general loop over a counter of its own (`while#N`, which the body
        never sees); the condition sees the body's assignments, as in C. Its trip count is known
        only by running it: the executor runs it with the values given (see
        execution.Execution.general_loop for a loop whose iterations stop changing anything)."""
        children = list(c.get_children())
        if len(children) != 2 or children[0].kind == CursorKind.VAR_DECL:
            raise self.error("a while loop that declares a variable in its condition is not supported", cursor=c)
        cond_t, cond_o = self.text_of(children[0])
        inner = Scope(scope)
        ivar = self.unique_loop_var("while")
        cond = self.parse(cond_t, cond_o, inner)
        body, _ = self._lower_loop_body(c, inner, ivar, "", Const(0), Const(1), None)
        test = self.scalar(cond, inner)
        broken = _break_flag(body)
        if broken is not None:  # after a `break` C leaves the loop without testing its condition
            test = binop("&&", binop("==", Var(broken), Const(0)), test)
        return ir.For(ivar, Const(0), None, None, body, self.range_of(c), kind="while", cond=test,
                      update=binop("+", Var(ivar), Const(1)))

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
        # `continue` / `break` of this loop: a flag each sets and the rest of the body tests (a
        # broken loop's remaining iterations issue nothing).
        serial = self._loop_ids[-1]
        cont = f"continued#{serial}" if has_jump(body_cursor, CursorKind.CONTINUE_STMT) else None
        brk = f"broken#{serial}" if has_jump(body_cursor, CursorKind.BREAK_STMT) else None
        self._jump_flags.append((cont, brk))
        try:
            body = self._lower_body(body_cursor, inner)
        finally:
            self._loop_vars.pop()
            self._loop_ids.pop()
            self._loops.pop()
            self._jump_flags.pop()
        if cont is not None:
            body.stmts.insert(0, ir.Assign(cont, Const(0), body.loc))
        if brk is not None:
            self._loop_prelude.append(ir.Assign(brk, Const(0), self.range_of(c)))
            body = ir.Block([ir.If(binop("==", Var(brk), Const(0)), body, None, body.loc)], body.loc,
                            uid=next(self._uid))
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
        # `int i = 0`, `uint32_t i{0}`, `std::size_t i = 0`, or `T i = ...` with a user type name (a
        # second name follows).
        declared = p.peek() is not None and (p.peek().text in type_words or
                                             (p.peek(1) is not None and (p.peek(1).kind == "id" or
                                                                         p.peek(1).text == "::")))
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

    def call_closure(self, closure: Closure, node: cp.Call, scope: Scope, loc: ir.SourceRange) -> ir.Block:
        """`body(i)` where `body` is a lambda the kernel passed to a helper (a loop helper of its
        own taking `class Body`): the lambda's statements with its parameters bound to the call's
        arguments, in the scope the lambda was written in; one block, like a helper's body, whose
        parameters name the caller's variables."""
        lam = closure.node
        if len(node.args) != len(lam.params):
            raise self.error(f"this lambda takes {len(lam.params)} argument(s), the call gives {len(node.args)}",
                             node.offset)
        args = [self.eval(a, scope) for a in node.args]
        inner = Scope(closure.scope)
        names: dict[str, str] = {}
        values: dict[str, Expr] = {}
        for (_, pname), a in zip(lam.params, args):
            if pname:
                inner.define(pname, self._param_binding(a))
                if isinstance(a, Var):
                    names[a.name] = pname
                if isinstance(a, Expr):
                    values[pname] = a
        self.lambda_calls.append(loc)
        with self.frame(closure.src, self.via + (loc,), f"lambda@{lam.offset}"):
            stmts = self.lower_compound(self._lambda_body_cursor(lam), inner)
        return ir.Block(stmts, loc, uid=next(self._uid), inlined=True, param_names=names, param_values=values)

    def lower_multibuffered(self, mb: MultiBufferLoop, node: cp.Call, scope: Scope,
                            loc: ir.SourceRange) -> list[ir.For]:
        """`db.loop<Range<N...>, FirstK, LastK>([&](auto ctx[, auto inner]) { ... })`: counted loops;
        iteration i runs on lane i % NumBuffs and tiles declared in the body get one copy per lane.
        MultiBuffered runs its phases one after the other, each a loop of its own whose context
        type carries the phase as a constant (`ctx.phase` may be a template argument): the
        prologue (iterations [0, FirstK)), the main phase ([FirstK, N - LastK)) and the epilogue
        ([N - LastK, N)), each present when it has iterations. So here too: one loop per phase,
        the body lowered once for each with `ctx.phase` the constant it is there."""
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
        if not names or len(names) > 2 or (len(names) == 2 and len(dims) < 2):
            raise self.error("the MultiBuffered body takes (ctx) or, for a nested Range, (ctx, inner)", lam.offset)
        phases = [(start, count, name) for start, count, name in
                  ((0, first_k, "Phase::Prologue"), (first_k, n - first_k - last_k, "Phase::Main"),
                   (n - last_k, last_k, "Phase::Epilogue")) if count > 0]
        if len(phases) < 2 or not self._reads_phase(lam, names[0]):
            # One phase, or a body that needs no phase as a constant: one loop over every iteration.
            phase = select(binop("<", Var("@i"), Const(first_k)), Const("Phase::Prologue"),
                           select(binop(">=", Var("@i"), Const(n - last_k)), Const("Phase::Epilogue"),
                                  Const("Phase::Main")))
            if len(phases) == 1:
                phase = Const(phases[0][2])
            return [self._multibuffered_phase(mb, dims, lam, names, 0, n, phase, scope, loc, None)]
        return [self._multibuffered_phase(mb, dims, lam, names, start, count, Const(name), scope, loc, name)
                for start, count, name in phases]

    def _reads_phase(self, lam, ctx: str) -> bool:
        """Whether the body may need its context's phase as a constant (phase_use): `ctx.phase`
        as a template argument or in a `constexpr` condition or declaration, or the context
        passed on whole (where a helper may). A phase only compared at run time
        (`if (ctx.phase == ...)`) is exact as a value of the iteration, in one loop."""
        if not ctx:
            return False
        return needs_constant_phase(self._lambda_body_cursor(lam), ctx, lam.offset, lam.body_start)

    def _multibuffered_phase(self, mb: MultiBufferLoop, dims, lam, names, start: int, count: int,
                             phase: Expr, scope: Scope, loc: ir.SourceRange, phase_name: str | None) -> ir.For:
        """A MultiBuffered loop over iterations [start, start + count) (one phase, `phase_name`,
        or all of them), lane i % NumBuffs of the absolute iteration i (as MultiBuffered numbers
        its lanes); `phase` is `ctx.phase`, of the iteration `@i`."""
        ivar = self.unique_loop_var(names[0] if names and names[0] else "iter")
        i = Var(ivar)
        n = start + count
        slot = binop("%", i, Const(mb.buffers))
        phase = phase.subst({"@i": i})
        inner = Scope(scope)
        inner.define(names[0], Binding("mbctx", LaneContext(i, slot, phase)))
        if len(names) == 2:
            inner.define(names[1], Binding("multibuf", MultiBufferLoop(mb.buffers, dims[1:])))
        self._loop_vars.append(ivar)
        self._loop_ids.append(next(self._loop_serial))
        self._loops.append((ivar, Const(start), Const(1), count, f"{names[0]}.iter", len(self._stack)))
        self._lanes.append((*self._physical_lane(mb.buffers, slot, f"{names[0]}.bufferId"),
                            self.src.range(lam.body_start, lam.body_end)))
        uid = next(self._uid)
        saved, self._scope_uid = self._scope_uid, uid
        before = dict(self.known)
        self.known.clear()  # see LoopLowering: a loop body assumes nothing its iterations may change
        try:
            stmts = self.lower_compound(self._lambda_body_cursor(lam), inner)
            self.forget_assigned(before, stmts)
        finally:
            self._loop_vars.pop()
            self._loop_ids.pop()
            self._loops.pop()
            self._lanes.pop()
            self._scope_uid = saved
        body = ir.Block(stmts, self.src.range(lam.body_start, lam.body_end), uid=uid)
        return ir.For(ivar, Const(start), Const(n), Const(1), body, loc, kind="MultiBuffered", buffers=mb.buffers,
                      cpp_var=f"{names[0]}.iter", phase=phase_name)

    def lower_stages(self, node: cp.Call, scope: Scope) -> list[ir.Block]:
        """`stages.run([&]() { ... }, [&]() { ... }, ...)`: pto-isa's MultiStaged calls each stage
        function once, in the order given (its pragma between stages is a hint to the AUTO
        compiler's scheduler, not an order the hardware keeps): each lambda body is one block at
        its place in the file, run in turn with the caller's names (the lambdas capture by
        reference)."""
        if not node.args or not all(isinstance(a, cp.Lambda) for a in node.args):
            raise self.error("MultiStaged::run takes its stages as lambdas written at the call", node.offset)
        blocks = []
        for lam in node.args:
            if lam.params:
                raise self.error("a MultiStaged stage takes no parameters", lam.offset)
            stmts = self.lower_compound(self._lambda_body_cursor(lam), scope)
            blocks.append(ir.Block(stmts, self.src.range(lam.body_start, lam.body_end), uid=next(self._uid),
                                   compound=True))
        return blocks

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
        # count = sum of each frame's iteration index times the trips of the frames inside it; a
        # term whose multiplier is a multiple of `buffers` adds nothing modulo it (every index is
        # >= 0), so it is left out: `inner % 2` when the inner loop runs an even number of times,
        # a lane a helper called in the body can name through what the call passes.
        count: Expr | None = None
        multiplier = 1
        for var, start, step, trips, _, _ in reversed(frames):
            if multiplier % buffers:
                index = binop("-", Var(var), start)
                if step != Const(1):
                    index = binop("/", index, step)
                term = index if multiplier == 1 else binop("*", index, Const(multiplier))
                count = term if count is None else binop("+", term, count)
            multiplier *= trips
        physical = binop("%", count if count is not None else Const(0), Const(buffers))
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
            for top in self.top:
                if top.kind.is_preprocessing():
                    continue  # before the file check: asking libclang for a cursor's file is slow
                if top.location.file is not None and top.location.file.name == fname:
                    found += [c for c in top.walk_preorder() if c.kind == CursorKind.COMPOUND_STMT]
            cache[fname] = found
        return cache[fname]


def _break_flag(body: ir.Block) -> str | None:
    """The `broken#N` flag a loop body with a `break` is wrapped in (see _lower_loop_body)."""
    if len(body.stmts) == 1 and isinstance(body.stmts[0], ir.If):
        cond = body.stmts[0].cond
        lhs = getattr(cond, "lhs", None)
        if isinstance(lhs, Var) and lhs.name.startswith("broken#") and getattr(cond, "op", None) == "==":
            return lhs.name
    return None


def has_jump(c: Cursor, kind: CursorKind) -> bool:
    """A `continue` or `break` (`kind`) below `c` that belongs to the loop `c` is the body of:
    nested loops and lambdas keep their own."""
    for k in c.get_children():
        if k.kind == kind:
            return True
        if k.kind in (CursorKind.FOR_STMT, CursorKind.WHILE_STMT, CursorKind.DO_STMT, CursorKind.LAMBDA_EXPR,
                      CursorKind.SWITCH_STMT):
            continue
        if has_jump(k, kind):
            return True
    return False
