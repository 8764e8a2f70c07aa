"""What a planned sync is, and where one can go: the candidates for ordering one dependence.

Candidates, most precise first (see docs/design.md, "Sync insertion"):
- forward: set right after the statement holding the producer, wait right before the one
  holding the consumer, at the level of a block that holds both;
- buffer free (reverse): carried by a loop whose consumer comes first in the body: waited
  before the consumer, set after the producer, primed before the outermost loop of the
  function and drained after it;
- first iteration: the consumer in a loop the producer precedes, behind other work of the
  loop's body: the wait right before the consumer's statement in the loop's first iteration
  (the set too, when the loop may not run);
- per-slot event ids when both ends index one tile array with the same expression;
- produced one iteration ahead when they index it with shifted slots (software pipelining);
- same pipe: a pipe_barrier before the consumer, where the architecture needs one.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import pairwise

from ptorewrite.analysis import ir
from ptorewrite.analysis.abstract import Compiled, is_known
from ptorewrite.analysis.deps import Edge
from ptorewrite.analysis.expr import Const, Expr, UnboundValue, UnOp, Var, binop, linear


@dataclass(eq=False)
class PlannedSync:
    kind: str  # "flag" or "barrier"
    src: str  # source pipe (the barrier's pipe, "ALL" for a full barrier)
    dst: str | None
    set_at: ir.Stmt | None  # set after this statement
    wait_at: ir.Stmt  # wait (or barrier) before this statement
    edge: Edge
    reverse_loop: ir.For | None = None  # reverse flag: carried by this loop
    prime_at: ir.Stmt | None = None  # prime before / drain after this statement
    # Drain after this statement instead; None: after prime_at. A chain of sequential copies of a
    # helper's flag on one id is primed before the first copy's loop and drained after the last's;
    # a flag on a helper's counted copies is primed before the first statement of the kernel that
    # calls the helper and drained after the last.
    drain_at: ir.Stmt | None = None
    # Its id is a helper's counter of its copies (counted_candidate): the copies of its lines in
    # every call share the ids, whose uses interleave by design.
    counted: bool = False
    # Flags that go in with this one as one candidate (a counted flag's lines in the producer's
    # copy of the helper when the consumer runs in another copy), on the same ids.
    companions: list[PlannedSync] = field(default_factory=list)
    slot: Expr | None = None  # event id offset per slot
    slots: int = 1
    # Produced one iteration ahead (software pipelining): the set uses the producer's slot, the
    # wait the consumer's, and `ahead` is the loop; its prime and drain are the one id pending
    # before the first and after the last iteration.
    wait_slot: Expr | None = None
    ahead: ir.For | None = None
    # Guarded ends: the set (the wait) is issued only when this condition holds there, written
    # `if (cond) set_flag(...)`: the other end sits inside an `if` (a guarded load, a guarded
    # last reader); the condition is that if's, shifted to the next iteration for a reverse flag.
    set_guard: Expr | None = None
    wait_guard: Expr | None = None
    event: int = 0  # base event id (virtual while planning)
    reason: str = ""
    operands: list[str] = field(default_factory=list)  # what it protects, for prime/drain comments
    # The slot part of the id as written inside a helper inlined at several call sites: one
    # text for every copy, in the helper's own names (`@name`), read at each call through what
    # it passes (`slot` and `wait_slot` are that copy's reading); None: written from `slot`.
    spelled_slot: Expr | None = None
    spelled_wait_slot: Expr | None = None
    # The per-lane reverse flag of an earlier loop whose ids this flag takes over in a later loop
    # (`rider_candidate`): it waits on the signal that loop left pending on the lane and sets the
    # lane's id again for the earlier flag's drain, so both share one id per lane.
    rides: PlannedSync | None = None
    # Returns the id of another flag for its next set (`credit_candidates`): its ordering of data
    # is incidental, so a plan may replace it with flags of those dependences' own.
    credit: bool = False

    @property
    def drain_stmt(self) -> ir.Stmt | None:
        return self.drain_at if self.drain_at is not None else self.prime_at

    def id_expr(self, wait: bool) -> Expr | None:
        """The slot part of the event id at the set (or the wait); None: the base id alone."""
        return self.wait_slot if wait and self.wait_slot is not None else self.slot

    def boundary_ids(self, where: str) -> list[Expr]:
        """Event ids primed ("before") or drained ("after"): every slot, or for a sync produced
        one iteration ahead the consumer's slot of the first iteration / of the one after the
        last (expressions of the enclosing loops' variables)."""
        if self.ahead is None:
            return [Const(self.event + k) for k in range(self.slots)]
        loop = self.ahead
        start, step, trips = int(loop.start.eval({})), int(loop.step.eval({})), loop.trip_count()
        index = start if where == "before" else start + trips * step
        return [binop("+", self.wait_slot.subst({loop.var: Const(index)}), Const(self.event))]


# Whether a helper names a caller variable through a parameter holding it shifted by a constant
# (`param_offsets`). On by default; a plan whose helper copies cannot agree with these names is
# made again without them (rewrite._sync_insertions), and the plan records which it used
# (SyncPlan.shifted_params) so that its lines are written the way it was planned.
SHIFTED_PARAMS: ContextVar[bool] = ContextVar("shifted_params", default=True)

# Whether a flag's ends may go inside the helper bodies and branches that hold its producer and
# consumer (`through_blocks`, the guarded flags of a consumer's branch). On by default; a plan whose
# helper copies cannot agree on such lines is made again without them (rewrite._sync_insertions).
DEEP_ENDS: ContextVar[bool] = ContextVar("deep_ends", default=True)
# Statements (file, start, end) inside helper bodies that take no such end: the kernels of one
# file that run one of them needed different lines there (rewrite._merged_planning_apart).
SHALLOW_AT: ContextVar[frozenset] = ContextVar("shallow_at", default=frozenset())


def param_offsets(helper: ir.Block) -> dict[str, tuple[str, int]]:
    """Caller variables an inlined helper sees only through a parameter holding the variable
    plus a constant (`compute(i + n - 4)` with `n` a compile-time value): IR variable ->
    (parameter, constant), so that the variable is the parameter minus the constant inside the
    helper at this call. A parameter bound to a value is not assigned inside the helper (the
    front end binds such a parameter once per call), and a caller variable is not assigned
    while the call runs unless the helper holds it by reference (then `param_names` names it
    and this is not used) or a lambda's body assigns it through its capture (then it is left
    out). The first parameter found names a variable."""
    out: dict[str, tuple[str, int]] = {}
    if not SHIFTED_PARAMS.get():
        return out
    assigned = {x.var for x in ir.walk(helper) if isinstance(x, (ir.Assign, ir.For))}
    for p, value in helper.param_values.items():
        form = linear(value) if isinstance(value, Expr) and not isinstance(value, Var) else None
        if form is None or len(form[0]) != 1:
            continue
        (v, k), = form[0].items()
        if k == 1 and v not in helper.param_names and v not in assigned:
            out.setdefault(v, (p, form[1]))
    return out


class BadEventId(Exception):
    """A planned sync's event id is not one known value at some point where it is issued."""


_COMPILED: dict[int, Compiled] = {}


def event_value(e: Expr, env: dict, forced=frozenset()) -> int:
    c = _COMPILED.get(id(e))
    if c is None or c.expr is not e:
        if len(_COMPILED) > 100_000:
            _COMPILED.clear()
        c = _COMPILED[id(e)] = Compiled(e)
    try:
        v = c(env, forced)
    except UnboundValue as u:
        raise BadEventId(u.name) from None
    if not is_known(v) or isinstance(v, bool) or not isinstance(v, int):
        raise BadEventId(str(e))
    return v


def guard_value(e: Expr, env: dict, forced=frozenset()) -> bool:
    """Whether a guarded end is issued at a point of the trace (raises BadEventId when that is
    not one known value there)."""
    c = _COMPILED.get(id(e))
    if c is None or c.expr is not e:
        c = _COMPILED[id(e)] = Compiled(e)
    try:
        v = c(env, forced)
    except UnboundValue as u:
        raise BadEventId(u.name) from None
    if not is_known(v):
        raise BadEventId(str(e))
    return bool(v)


# ---------------------------------------------------------------- statement tree


@dataclass
class Tree:
    """Parent links of the IR: for placement at the level of a common block."""

    parent: dict[int, ir.Stmt]  # id(stmt) -> enclosing Block/For/If
    order: dict[int, int]  # id(stmt) -> pre-order position
    root: ir.Stmt | None = None  # the kernel's body
    # source text (file, offsets) -> the inlined helper bodies holding a statement of that text
    _bodies: dict[tuple, set[int]] | None = None

    @classmethod
    def of(cls, kernel: ir.Kernel) -> Tree:
        parent: dict[int, ir.Stmt] = {}
        order: dict[int, int] = {}
        stack: list[tuple[ir.Stmt, ir.Stmt | None]] = [(kernel.body, None)]
        while stack:
            s, p = stack.pop()
            order[id(s)] = len(order)
            if p is not None:
                parent[id(s)] = p
            kids = s.stmts if isinstance(s, ir.Block) else [s.body] if isinstance(s, ir.For) else \
                [s.then] + ([s.other] if s.other is not None else []) if isinstance(s, ir.If) else []
            stack.extend((k, s) for k in reversed(kids))
        return cls(parent, order, kernel.body)

    def calls_sharing(self, s: ir.Stmt) -> int:
        """How many inlined helper bodies hold a copy of s's source text (1 outside helpers)."""
        if self._bodies is None:
            self._bodies = {}
            for x in ir.walk(self.root) if self.root is not None else ():
                loc = getattr(x, "loc", None)
                body = next((a for a in self.chain(x)[1:] if isinstance(a, ir.Block) and a.inlined), None)
                if loc is not None and body is not None:
                    self._bodies.setdefault((loc.file, loc.offset, loc.end_offset), set()).add(id(body))
        loc = getattr(s, "loc", None)
        return max(1, len(self._bodies.get((loc.file, loc.offset, loc.end_offset), ()))) if loc is not None else 1

    def chain(self, s: ir.Stmt) -> list[ir.Stmt]:
        """s and its ancestors, innermost first."""
        out = [s]
        while id(out[-1]) in self.parent:
            out.append(self.parent[id(out[-1])])
        return out

    def child_of(self, block: ir.Block, s: ir.Stmt) -> ir.Stmt:
        """The statement directly in `block` that contains s."""
        prev = s
        for a in self.chain(s)[1:]:
            if a is block:
                return prev
            prev = a
        raise KeyError("not inside block")

    def common_block(self, a: ir.Stmt, b: ir.Stmt) -> ir.Block:
        anc = {id(x) for x in self.chain(a)}
        for x in self.chain(b):
            if isinstance(x, ir.Block) and id(x) in anc:
                return x
        raise KeyError("no common block")

    def outermost_loop_holding(self, s: ir.Stmt) -> ir.Stmt:
        """The outermost statement of s's own function that contains s (reverse flags are
        primed before it and drained after it)."""
        chain = self.chain(s)
        for i, a in enumerate(chain[1:], start=1):
            if isinstance(a, ir.Block) and (a.inlined or id(a) not in self.parent):
                return chain[i - 1]
        return s

    def names_at(self, s: ir.Stmt) -> dict[str, str]:
        """Scalar variables in scope next to s, IR name -> C++ spelling: enclosing loop variables
        and local scalars (e.g. a ping-pong index) declared earlier in an enclosing block, within
        s's own function; inside an inlined helper also the caller's variables its parameters
        name, spelled as the parameter (`pp` passed as `uint8_t slot` is `slot` there), and those
        a parameter holds shifted by a constant (`i` passed as `int t` holding `i + n - 4` with
        `n` known is `(t - n + 4)` there: `param_offsets`)."""
        chain = self.chain(s)
        helper = next((a for a in chain[1:] if isinstance(a, ir.Block) and a.inlined), None)
        out: dict[str, str] = dict(helper.param_names) if helper is not None else {}
        if helper is not None:
            for v, (p, c) in param_offsets(helper).items():
                # Placeholder spelling; the emitter writes the folded form (`shifts_at`).
                out.setdefault(v, p if c == 0 else f"({p} {'-' if c > 0 else '+'} {abs(c)})")
        inner = s
        for a in chain[1:]:
            if isinstance(a, ir.For):
                out.setdefault(a.var, a.cpp_var or a.var.split("#")[0])
            if isinstance(a, ir.Block):
                for x in a.stmts:
                    if x is inner:
                        break
                    if isinstance(x, ir.Assign) and not getattr(x, "counter_start", False):
                        # (a helper's counter set at the start is named inside the helper only)
                        out.setdefault(x.var, x.var.split("#")[0])
                if a.inlined:
                    break
            inner = a
        return out

    def shifts_at(self, s: ir.Stmt) -> dict[str, tuple[str, int]]:
        """The caller variables `names_at` spells through a parameter shifted by a nonzero
        constant, IR name -> (parameter, constant): an expression using them is written with
        the parameter substituted and its affine parts folded, so that every call of a helper
        spells one value alike (`(t - 6) + 8` and `t + 2`)."""
        helper = next((a for a in self.chain(s)[1:] if isinstance(a, ir.Block) and a.inlined), None)
        if helper is None:
            return {}
        return {v: (p, c) for v, (p, c) in param_offsets(helper).items()
                if c != 0 and v not in helper.param_names}

    def spells(self, e: Expr | None, s: ir.Stmt) -> bool:
        """Whether e can be written next to s (every variable of it is in scope there)."""
        return e is None or e.free_vars() <= self.names_at(s).keys()

    def guarded(self, s: ir.Stmt, outer: ir.Stmt) -> tuple[ir.Stmt, Expr] | None:
        """When s lies inside `if`s within `outer`: the statement holding s directly inside the
        innermost branch (where a flag next to s goes) and the conjunction of the conditions that
        lead there; None when no `if` lies between."""
        chain = self.chain(s)
        conds: list[Expr] = []
        inner = None
        for below, a in pairwise(chain):
            if below is outer:
                break
            if isinstance(a, ir.If):
                if inner is None:
                    inner = below
                conds.append(a.cond if below is a.then else UnOp("!", a.cond))
            elif _runs_once(a) and conds:
                # A loop of one iteration: its variable has one value, which the conditions
                # inside it are read with (the other end may lie outside the loop).
                conds = [c.subst({a.var: a.start}) for c in conds]
        if inner is None:
            return None
        cond = conds[-1]
        for c in reversed(conds[:-1]):
            cond = binop("&&", cond, c)
        return self.child_of(inner, s), cond

    def loop_of(self, block: ir.Block) -> ir.For | None:
        """The loop whose iterations run `block` at most once each: its body, or a block nested in
        the body through plain blocks (an inlined helper's body, a `{ ... }` scope) and branches of
        `if`s (a flag with both ends in one branch is issued equally often at both ends)."""
        p = self.parent.get(id(block))
        while isinstance(p, (ir.Block, ir.If)):
            p = self.parent.get(id(p))
        return p if isinstance(p, ir.For) else None

    def loops_around(self, s: ir.Stmt) -> list[ir.For]:
        return [a for a in self.chain(s)[1:] if isinstance(a, ir.For)]


# ---------------------------------------------------------------- candidates


def root(ref: ir.TileRef) -> tuple[ir.TileDecl, Expr | None]:
    while ref.tile.alias is not None:
        ref = ref.tile.alias.base
    return ref.tile, ref.index


def through_blocks(tree: Tree, top: ir.Stmt, s: ir.Stmt) -> ir.Stmt:
    """The statement holding s innermost that `top` reaches through inlined helper bodies,
    compound statements and loops of one iteration only, never into a branch or another loop: a
    flag there runs exactly as often as one next to `top`."""
    # Not into the blocks one source statement lowers to (a TPOP's wait, load and tile-id step):
    # they take their lines next to the statement as written.
    shallow = SHALLOW_AT.get()
    while top is not s and ((isinstance(top, ir.Block) and (top.inlined or top.compound)) or _runs_once(top)):
        inner = tree.child_of(top.body if isinstance(top, ir.For) else top, s)
        if shallow and (inner.loc.file, inner.loc.offset, inner.loc.end_offset) in shallow:
            break
        top = inner
    return top


def _runs_once(s: ir.Stmt) -> bool:
    """A counted loop of one iteration on every run (a lane loop over one lane): a flag in its
    body runs exactly as often as one next to it."""
    return _same_iterations_every_run(s) and s.trip_count() == 1


def deep_wait_overlaps(tree: Tree, top: ir.Stmt, s: ir.Instr) -> bool:
    """Whether `top` (which holds s) runs an instruction of s's pipe before the statement
    `through_blocks` reaches: a wait there lets that instruction run while the flag is pending."""
    return _runs_before(tree, top, through_blocks(tree, top, s), s.pipe)


def _runs_after(tree: Tree, top: ir.Stmt, at: ir.Stmt, pipe: str) -> bool:
    """Whether `top` holds an instruction of `pipe` that comes after everything in `at`."""
    end = max(tree.order[id(x)] for x in ir.walk(at))
    return any(isinstance(x, ir.Instr) and x.pipe == pipe and tree.order[id(x)] > end for x in ir.walk(top))


def _runs_before(tree: Tree, top: ir.Stmt, at: ir.Stmt, pipe: str) -> bool:
    """Whether `top` holds an instruction of `pipe` that comes before `at`."""
    return any(isinstance(x, ir.Instr) and x.pipe == pipe and tree.order[id(x)] < tree.order[id(at)]
               for x in ir.walk(top))


def flag_variants(tree: Tree, e: Edge, set_at: ir.Stmt, wait_at: ir.Stmt, one_id: bool,
                  loop: ir.For | None = None, **guards) -> list[PlannedSync]:
    """The flag set after `set_at` and waited before `wait_at` for `e`, once per id form
    (`slot_variants`) both ends can spell: forward, or with `loop` a reverse flag of that loop
    (primed before the outermost loop of its function holding it, drained after). `guards`:
    set_guard / wait_guard."""
    reason = f"{e.kind.upper()} {e.what}: {e.src.pipe} -> {e.dst.pipe}"
    reverse = {} if loop is None else {"reverse_loop": loop, "prime_at": tree.outermost_loop_holding(loop)}
    out = []
    for set_slot, wait_slot, slots in slot_variants(e, one_id):
        if not (tree.spells(set_slot, set_at) and tree.spells(wait_slot, wait_at)):
            continue  # the slot is not expressible where the flags go
        out.append(PlannedSync("flag", e.src.pipe, e.dst.pipe, set_at, wait_at, e, slot=set_slot, slots=slots,
                               wait_slot=wait_slot if wait_slot is not set_slot else None,
                               reason=reason if loop is None else f"{reason} (next iteration)", **reverse, **guards))
    return out


def root_tiles(s: ir.Instr) -> set[int]:
    return {id(root(a.value)[0]) for a in s.tile_args}


def inside_guards(tree: Tree, at: ir.Stmt, s: ir.Stmt) -> ir.Stmt:
    """The statement holding s inside the `if`s that `at` (which holds s) opens: a barrier there
    runs only when s does."""
    chain = {id(y) for y in tree.chain(s)}
    while isinstance(at, ir.If) and at is not s:
        branch = next(x for x in (at.then, at.other) if x is not None and id(x) in chain)
        at = tree.child_of(branch, s)
    return at


def barrier_candidate(tree: Tree, e: Edge) -> PlannedSync:
    block = e.carrier.body if e.carrier is not None else tree.common_block(e.src, e.dst)
    b = tree.child_of(block, e.dst)
    return PlannedSync("barrier", e.src.pipe, None, None, b, e,
                       reason=f"{e.kind.upper()} {e.what}: {e.src.op} -> {e.dst.op} on PIPE_{e.src.pipe}")


def candidates(tree: Tree, e: Edge, one_id: bool, ahead_ok, last_use=None) -> list[PlannedSync]:
    """Ways to order one cross-pipe dependence with a flag, most precise first.

    Levels run from the innermost block holding both ends out to the body of the loop that
    carries the dependence. At each level the ends are the statements of that block that
    contain them: if the producer's comes first, a forward flag; otherwise a reverse flag of
    that block's loop, primed before the outermost loop of the function. A reverse flag of an
    inner loop also orders the producer's run before the consumer's next run, because its prime
    and drain are hoisted and its per-slot flags chain across runs. Each is tried with per-slot
    event ids (unless `one_id`), then with one id. `ahead_ok(e, a, b)` vets a flag produced one
    iteration ahead; `last_use(e, loop)` is the loop variable's value in the last iteration of
    `loop` whose producer instance the edge holds (None: not known for every run).
    """
    outer = e.carrier.body if e.carrier is not None else None
    levels: list[ir.Block] = []
    block = tree.common_block(e.src, e.dst)
    while True:
        levels.append(block)
        if outer is None or block is outer:
            break
        block = next(x for x in tree.chain(block)[1:] if isinstance(x, ir.Block))
    out: list[PlannedSync] = []
    deferred: list[PlannedSync] = []
    # Both ends on a tile whose copy one counter over two declarations names
    # (transform.shared_region): a flag with that counter as its id, placed where the counter
    # is in scope (outside the helpers the ends lie in), beats one id placed closer.
    shared = [v for v, _, _ in slot_variants(e, one_id) if v is not None and any(
        root(x.value)[0].shared_counter for x in e.dst.tile_args)]
    if not one_id:
        counted = counted_candidate(tree, e)
        if counted is not None:
            out.append(counted)
    for block in levels:
        a = tree.child_of(block, e.src)
        b = tree.child_of(block, e.dst)
        forward = a is not b and tree.order[id(a)] < tree.order[id(b)]
        loop = tree.loop_of(block)
        if not forward and loop is None:
            continue
        guarded = guarded_candidates(tree, e, a, b, forward, loop, one_id) if a is not b else []
        first = first_iteration_candidates(tree, e, a, b, one_id) if forward else []
        if not forward and loop is not None and last_use is not None and a is not b:
            first = first_use_candidates(tree, e, a, b, loop, one_id, last_use)
        last = last_use_candidates(tree, e, a, b, one_id, last_use) if forward and last_use is not None else []
        if a is not b and e.carrier is not None and loop is e.carrier and not one_id:
            ahead = produced_ahead(tree, e, a, b, ahead_ok)
            if ahead is not None:
                out.append(ahead)
        # Per-slot flags first (unguarded, then guarded), then one id (guarded, then not).
        plain: list[PlannedSync] = []
        if forward and DEEP_ENDS.get():
            # The same flag with its ends inside the blocks (an inlined helper's body) that hold
            # producer and consumer: set right after the producer's own statement, wait right
            # before the consumer's, so the pipes run the helper's other work meanwhile.
            da, db = through_blocks(tree, a, e.src), through_blocks(tree, b, e.dst)
            da = da if _runs_after(tree, a, da, e.src.pipe) else a
            db = db if _runs_before(tree, b, db, e.dst.pipe) else b
            if (da, db) != (a, b):
                plain += flag_variants(tree, e, da, db, one_id)
        plain += flag_variants(tree, e, a, b, one_id, loop=None if forward else loop)
        # A guarded flag whose wait lets the consumer's pipe run its branch's earlier work beats
        # the wait before the `if`, among flags of one id. When the producer lies in a helper
        # inlined at several call sites it goes before the per-slot flags too: a per-slot id there
        # rarely survives (the calls' lanes differ, and the one text gets one id). Elsewhere a
        # per-slot flag's overlap across iterations is worth more than the branch's early work.
        early = [c for c in guarded if forward and c.set_guard is not None and c.wait_guard is None
                 and _runs_before(tree, b, c.wait_at, e.dst.pipe)]
        guarded = [c for c in guarded if not any(c is x for x in early)]
        first_of_all = [c for c in early if c.slot is None and tree.calls_sharing(e.src) > 1]
        out += first_of_all
        # A set in the producer loop's last iteration that conflicts beats one after the loop; a
        # wait in the first iteration of the consumer's loop beats one before the loop.
        out += [c for c in last + first if c.slot is not None] + [c for c in plain if c.slot is not None]
        out += [c for c in guarded if c.slot is not None]
        one = [c for c in early if c.slot is None and not any(c is x for x in first_of_all)]
        one += [c for c in last + first + guarded if c.slot is None] + [c for c in plain if c.slot is None]
        if shared and not any(tree.spells(v, a) and tree.spells(v, b) for v in shared):
            deferred += one
        else:
            out += one
    return out + deferred


def counted_candidate(tree: Tree, e: Edge) -> PlannedSync | None:
    """A dependence between two runs of a helper's declaration on the copy its counter names
    (`transform.call_lanes`: both ends index the tile with the same counter): the flag an expert
    writes with the counter as its id, waited before the consumer and set after the producer
    inside the helper, every id primed before the kernel's first statement that runs the helper
    and drained after its last one. Each run waits on and then sets the id of its own copy, so
    the ids stay balanced however many runs there are (under run-time `if`s too), and the run
    that reuses a copy waits for the last one that used it."""
    for da in e.dst.tile_args:
        if da.text != e.what:
            continue
        tile, index = root(da.value)
        if not (tile.per_lane and tile.counter_block and index == Var(tile.lane_counter)):
            continue
        for sa in e.src.tile_args:
            st, sidx = root(sa.value)
            if not (st.per_lane and st.counter_block and sidx == index):
                continue
            a = _in_block(tree, e.src, st.counter_block)
            b = _in_block(tree, e.dst, tile.counter_block)
            if a is None or b is None or not (tree.spells(index, a) and tree.spells(index, b)) or \
                    (tree.parent.get(id(a)) is tree.parent.get(id(b)) and tree.order[id(a)] <= tree.order[id(b)]):
                continue  # (a dependence within one run is ordered as any other)
            # One text: the copies of the helper's lines share the ids, primed and drained once
            # around every run of the helper (of every instantiation); the copies' flags prime
            # and drain at the same places, which count once (sync_check.PlanTrace.order).
            name = tile.lane_text
            root_block = tree.chain(a)[-1]
            top = [x for x in root_block.stmts if any(_is_step(y, name) for y in ir.walk(x))]
            prime, drain = top[0], top[-1]
            reason = f"{e.kind.upper()} {e.what}: {e.src.pipe} -> {e.dst.pipe} (the copy's next use)"
            block_a, block_b = tree.parent.get(id(a)), tree.parent.get(id(b))
            if block_a is block_b:
                return PlannedSync("flag", e.src.pipe, e.dst.pipe, a, b, e, prime_at=prime, drain_at=drain,
                                   slot=index, slots=tile.count, counted=True, reason=reason)
            # The producer runs in another copy of the helper (another call site): every copy
            # waits and sets the ids, so that the one chain of each id passes through both.
            a_in_b, b_in_a = _analog(a, block_b), _analog(b, block_a)
            if a_in_b is None or b_in_a is None or not isinstance(block_a.stmts[0], ir.Assign):
                continue
            out = PlannedSync("flag", e.src.pipe, e.dst.pipe, a_in_b, b, e, prime_at=prime, drain_at=drain,
                              slot=index, slots=tile.count, counted=True, reason=reason)
            out.companions = [PlannedSync("flag", e.src.pipe, e.dst.pipe, a, b_in_a, e, prime_at=prime,
                                          drain_at=drain, slot=Var(block_a.stmts[0].var), slots=tile.count,
                                          counted=True, reason=reason)]
            return out
    return None


def _analog(s: ir.Stmt, block: ir.Block) -> ir.Stmt | None:
    """The statement of `block` (another copy of s's block) that s is: same place, same text."""
    return next((x for x in block.stmts if x.loc is not None and s.loc is not None and x.loc == s.loc
                 and type(x) is type(s)), None)


def _in_block(tree: Tree, s: ir.Stmt, uid: int) -> ir.Stmt | None:
    """The statement directly in the block `uid` (around s) that holds s."""
    block = next((x for x in tree.chain(s)[1:] if isinstance(x, ir.Block) and x.uid == uid), None)
    return None if block is None else tree.child_of(block, s)


def _is_step(s: ir.Stmt, name: str) -> bool:
    """Whether s is a step of a counter written `name` (an assignment of it, not its start)."""
    return isinstance(s, ir.Assign) and s.var.split("#")[0] == name and not getattr(s, "counter_start", False)


def slot_variants(e: Edge, one_id: bool) -> list[tuple[Expr | None, Expr | None, int]]:
    """(set's slot, wait's slot, slots) to try, most precise first: one index expression at both
    ends, then the two ends' own expressions of one tile array (two spellings of the same slot:
    `buf[pp]` loaded, `buf[(pp == 0) ? 1 : 0]` read after `pp` flipped; the trace decides whether
    they name the same bytes), then one end's expression at both (a FIFO's local slot is
    `(counter % N)` in the pop's own move and `((counter - 1) % N)` after it, and a set after the
    pop is written where the counter has already counted it), then, for a tile whose copies one
    counter over a lane loop and the tile after it names (transform.shared_region) and a
    dependence within one iteration, the lane loop's own index at both ends (a helper the lane
    calls has no name for the counter, but has one for the lane; the flag is set and waited in
    the same lane, so any id that differs from lane to lane lets the lanes overlap, and the plan's
    check decides whether it holds), then one id."""
    out: list[tuple[Expr | None, Expr | None, int]] = []
    if not one_id:
        same = [(i, i, n) for si, i, n in _slot_pairs(e) if si == i]
        other = [(si, i, n) for si, i, n in _slot_pairs(e) if si != i]
        # Only for an index of a FIFO's own count (a name no C++ variable has: analysis.cluster_view):
        # elsewhere the two spellings name one slot and a third guess only costs overlap.
        either = [v for si, i, n in other[:1] if any("." in x for x in si.free_vars() | i.free_vars())
                  for v in ((i, i, n), (si, si, n))]
        lanes = [(x, x, n) for _, _, n, x in _lane_indices(e)] if e.carrier is None and same else []
        for v in same[:1] + other[:2] + either + lanes[:1]:
            if v not in out:
                out.append(v)
    out.append((None, None, 1))
    return out


def first_iteration_candidates(tree: Tree, e: Edge, a: ir.Stmt, b: ir.Stmt, one_id: bool) -> list[PlannedSync]:
    """The consumer lies in an inner loop `b` the producer precedes: the wait goes inside that
    loop, right before the consumer's statement, issued in its first iteration only
    (`if (kk == 0) wait_flag(...)`), so what the loop does before the consumer (the extract of
    one operand while the other still loads) need not wait. A hand-written kernel's
    conditional wait at the first step of a panel. The consumer may sit in an `if` of that
    statement whose other branch uses the same pipe (a helper that loads the running output at
    step 0 and the step's partial result after): the wait is outside that `if`, and what the
    first step's wait gives the pipe holds for its later instructions too.

    A loop that may not run (an unknown trip count) would leave a set before it pending: there
    the set moves into the first iteration too, right before the wait (`if (kk == 0)` at both),
    so each run of the loop sets and waits once or not at all. The set then also orders what the
    producer's pipe issued in the first iteration before it, which the plain wait before the
    loop does not need."""
    trips = b.trip_count() if isinstance(b, ir.For) else 0
    if not isinstance(b, ir.For) or not b.counted or b.start.free_vars() or trips == 0:
        return []
    wait_at = tree.child_of(b.body, e.dst)
    if not any(isinstance(x, ir.Instr) and tree.order[id(x)] < tree.order[id(wait_at)] for x in ir.walk(b.body)):
        return []  # nothing in the loop runs before the consumer: the wait goes before the loop
    guard = binop("==", Var(b.var), b.start)
    if not tree.spells(guard, wait_at):
        return []
    set_at, set_guard = a, None
    if trips is None:
        before = next(k for k, x in enumerate(b.body.stmts) if x is wait_at) - 1  # >= 0: an instruction precedes
        set_at, set_guard = b.body.stmts[before], guard
        if not tree.spells(guard, set_at):
            return []
    return flag_variants(tree, e, set_at, wait_at, one_id, set_guard=set_guard, wait_guard=guard)


def _same_iterations_every_run(s: ir.Stmt) -> bool:
    """A counted loop of constant start, step and trip count of at least one: every run of it
    runs the same iterations, so a statement guarded on one value of its variable runs exactly
    once per run (the first and last use placements below)."""
    return isinstance(s, ir.For) and s.counted and not s.start.free_vars() and not s.step.free_vars() \
        and s.trip_count() not in (None, 0)


def first_use_candidates(tree: Tree, e: Edge, a: ir.Stmt, b: ir.Stmt, loop: ir.For, one_id: bool,
                         last_use) -> list[PlannedSync]:
    """A reverse flag of `loop` whose consumer lies in an inner loop `b` that runs before the
    producer `a` in each iteration: the wait goes inside `b`, right before the consumer's
    statement, issued only in the first iteration of `b` whose consumer depends on the producer
    (`if (ctx.iter == 1) wait_flag(...)`), so the iterations of `b` before it need not wait. A
    lane loop whose lanes and the tile after it take their copies from one counter: the next
    step's first lane loads the copy the tile did not use, its second lane the tile's.
    Only for an inner loop every run of which runs the same iterations (constant start, step and
    trip count, none left out of the trace): the guard then holds exactly once per run, as the
    set after the producer runs once per iteration of `loop`. `last_use(e, b, first=True)` is the
    variable's value in that iteration."""
    if not _same_iterations_every_run(b):
        return []
    value = last_use(e, b, first=True)
    if value is None or value == int(b.start.eval({})):
        return []  # the first iteration: the wait before the loop is as late
    wait_at = tree.child_of(b.body, e.dst)
    guard = binop("==", Var(b.var), Const(value))
    if not tree.spells(guard, wait_at):
        return []
    return flag_variants(tree, e, a, wait_at, one_id, loop=loop, wait_guard=guard)


def last_use_candidates(tree: Tree, e: Edge, a: ir.Stmt, b: ir.Stmt, one_id: bool,
                        last_use) -> list[PlannedSync]:
    """The producer lies in an inner loop `a` the consumer follows: the set goes inside that
    loop, right after the producer's statement, issued only in the last iteration whose
    producer the consumer depends on (`if (kk == 0) set_flag(...)`), so the consumer need not
    wait for the iterations after it. A lane loop over a double-buffered tile followed by a
    tile placed over one lane: the release of that lane is its last reader, not the loop's end.
    Only for a loop every run of which runs the same iterations (constant start, step and trip
    count of at least one, none left out of the trace): the guard then holds exactly once per
    run, where `last_use` found the last producing iteration of every run."""
    if not _same_iterations_every_run(a):
        return []
    value = last_use(e, a)
    if value is None:
        return []
    start, step, trips = int(a.start.eval({})), int(a.step.eval({})), a.trip_count()
    if value == start + (trips - 1) * step:
        return []  # the last iteration: the set after the loop is as early
    set_at = tree.child_of(a.body, e.src)
    guard = binop("==", Var(a.var), Const(value))
    if not tree.spells(guard, set_at):
        return []
    return flag_variants(tree, e, set_at, b, one_id, set_guard=guard)


def rider_candidate(tree: Tree, lanes: PlannedSync, e: Edge) -> PlannedSync | None:
    """A dependence from inside the loop that carries `lanes` (a per-lane reverse flag: each
    lane's load waits on the id its last reader set in the previous iteration) to the first
    loads of a later loop over the same lanes (a prologue's lane loop, then a steady loop's):
    the later loop's first iteration waits on the lane's own id, which the earlier loop left
    pending after the lane's last reader, right before the statement that loads the lane, and
    sets it again after that statement, both under one guard (the first iteration of every loop
    around it inside the block holding both loops, and of the lane loop the first `slots`
    iterations). Each lane then waits only on its own last reader of the earlier loop, not on
    the earlier loop's last one, as an expert carries EVENT_ID0/1 from a prologue into the steady
    loop. Sets and waits stay balanced for every trip count of either loop (0 included): the
    guarded wait and set run together or not at all, and the earlier flag's drain, after the
    later loop, takes what is pending. The check on the trace decides whether the lanes agree."""
    loop = lanes.reverse_loop
    if loop is None or any(x is loop for x in tree.chain(e.dst)):
        return None
    try:
        common = tree.common_block(loop, e.dst)
    except KeyError:
        return None
    inside: list[ir.For] = []
    for x in tree.chain(e.dst)[1:]:
        if x is common:
            break
        if isinstance(x, ir.For):
            inside.append(x)
    if not inside:
        return None
    lane_loop = inside[0]
    for x in inside:
        if not x.counted or x.start.free_vars() or x.step is None or x.step.free_vars() or x.keeps_var:
            return None
    step = int(lane_loop.step.eval({}))
    if step <= 0:
        return None
    at = tree.child_of(lane_loop.body, e.dst)
    guard: Expr = binop("<", Var(lane_loop.var), Const(int(lane_loop.start.eval({})) + lanes.slots * step))
    for x in inside[1:]:
        guard = binop("&&", binop("==", Var(x.var), x.start), guard)
    # The set goes after the last statement of the lane loop's body from `at` on that issues
    # work on the producer's pipe (the lane's last reader there): it follows the wait through
    # the lane's own load and readers, and leaves the lane's signal where the earlier flag's
    # next wait (its drain) expects it.
    body = lane_loop.body.stmts
    start = next(k for k, x in enumerate(body) if x is at)
    set_at = next((x for x in reversed(body[start:]) if any(isinstance(i, ir.Instr) and i.pipe == e.src.pipe
                                                          for i in ir.walk(x))), None)
    if set_at is None or not tree.spells(guard, at) or not tree.spells(guard, set_at):
        return None
    # The consumer's own index into its lanes: the two loops declare the tile apart (one
    # declaration in each loop's body, both placed on the same lanes), so no index pairs the
    # ends of one tile array (`slot_variants`); the trace decides whether the lanes agree.
    for da in e.dst.tile_args:
        if da.text != e.what:
            continue
        tile, slot = root(da.value)
        if slot is None or slot.is_const or tile.count != lanes.slots or not tree.spells(slot, at) or \
                not tree.spells(slot, set_at):
            continue
        return PlannedSync("flag", e.src.pipe, e.dst.pipe, set_at, at, e, slot=slot, slots=lanes.slots, set_guard=guard,
                           wait_guard=guard, event=lanes.event, rides=lanes,
                           reason=f"{e.kind.upper()} {e.what}: {e.src.pipe} -> {e.dst.pipe} (the lane's last "
                                  "reader in the loop before)")
    return None


def _other_branch_uses(tree: Tree, s: ir.Instr, outer: ir.Stmt) -> bool:
    """Whether an `if` between s and `outer` has another branch with an instruction of s's pipe."""
    chain = tree.chain(s)
    for below, a in pairwise(chain):
        if below is outer:
            return False
        if isinstance(a, ir.If):
            other = a.other if below is a.then else a.then
            if other is not None and any(isinstance(x, ir.Instr) and x.pipe == s.pipe for x in ir.walk(other)):
                return True
    return False


def guarded_candidates(tree: Tree, e: Edge, a: ir.Stmt, b: ir.Stmt, forward: bool, loop: ir.For | None,
                       one_id: bool) -> list[PlannedSync]:
    """Flags with an end inside the `if` that guards the producer or the consumer, as an expert
    writes them: the wait right before a guarded load, the set right after the guarded producer,
    the other end issued under the same condition so that sets and waits stay balanced. For a
    reverse flag (the consumer guarded, e.g. a panel load every few steps) the release is set
    after the reader only when the next iteration loads: under the guard with the loop variable
    advanced by one step. The check on the trace decides whether the guard and the ids match."""
    gs = tree.guarded(e.src, a)
    gd = tree.guarded(e.dst, b)
    if gs is None and gd is None:
        return []
    # `if (k == 0) TMATMUL else TMATMUL_ACC`: one unguarded flag serves both branches, unless a
    # forward wait inside the consumer's branch lets that pipe run work ahead of it.
    if (_other_branch_uses(tree, e.src, a) or _other_branch_uses(tree, e.dst, b)) and not (
            DEEP_ENDS.get() and forward and gs is None and gd is not None and deep_wait_overlaps(tree, gd[0], e.dst)):
        if not (forward and gs is not None and not _other_branch_uses(tree, e.src, a)):
            return []
        # A guarded producer and a consumer with such branches: the set inside the producer's
        # branch, the wait before the consumer's `if` under the producer's condition.
        gd = None
    set_at, set_guard = (gs[0], None) if gs is not None else (a, None)
    wait_at, wait_guard = (gd[0], None) if gd is not None else (b, None)
    if forward and DEEP_ENDS.get():
        set_at, wait_at = through_blocks(tree, set_at, e.src), through_blocks(tree, wait_at, e.dst)
    if forward:
        if gs is not None and gd is not None and gs[1] == gd[1]:
            pass  # the same condition at both ends: no guard needed
        else:
            wait_guard = gs[1] if gs is not None else None
            set_guard = gd[1] if gd is not None else None
    else:
        if loop is None or gs is not None or gd is None:
            return []  # a guarded reader of a reverse flag is not handled: the plain flag serves
        cond = gd[1]
        if not cond.free_vars() <= {loop.var} or not loop.counted or loop.step.free_vars():
            return []
        set_guard = cond.subst({loop.var: binop("+", Var(loop.var), loop.step)})
    for g, at in ((set_guard, set_at), (wait_guard, wait_at)):
        if not tree.spells(g, at):
            return []
    return flag_variants(tree, e, set_at, wait_at, one_id, loop=None if forward else loop,
                         set_guard=set_guard, wait_guard=wait_guard)


def credit_candidates(tree: Tree, s: PlannedSync, one_id: bool, before: PlannedSync | None = None) -> list[PlannedSync]:
    """Flags back from the destination pipe of `s` to its source that order each wait of `s`
    (of `before`: another copy of the same lines, sharing its id) before its next set: set right
    after the statement the wait precedes, waited right before the statement the set follows
    (the hand-written reverse flag that returns the "credit"). Levels run out from the innermost
    block holding both; where the wait's statement comes first, a forward flag in the same
    iteration, else a reverse flag of that block's loop. Between two copies of a helper the
    levels start at their call statements, so the credit's lines are the callers' own."""
    a, b = (before or s).wait_at, s.set_at
    out: list[PlannedSync] = []
    block: ir.Block | None = tree.common_block(a, b)
    while block is a or block is b:  # an end placed at a block (an inlined helper's body): levels start above it
        block = next((x for x in tree.chain(block)[1:] if isinstance(x, ir.Block)), None)
        if block is None:
            return out
    while True:
        ca, cb = tree.child_of(block, a), tree.child_of(block, b)
        forward = ca is not cb and tree.order[id(ca)] < tree.order[id(cb)]
        loop = tree.loop_of(block)
        for slotted in (True, False):
            slot = s.id_expr(True) if slotted and s.ahead is None else None
            if slotted and (one_id or slot is None):
                continue
            if not (tree.spells(slot, ca) and tree.spells(slot, cb)):
                continue
            slots = s.slots if slot is not None else 1
            reason = f"{s.edge.what} consumed: {s.dst} -> {s.src} (flag reuse)"
            if forward:
                out.append(PlannedSync("flag", s.dst, s.src, ca, cb, s.edge, slot=slot, slots=slots, reason=reason,
                                       credit=True))
            elif isinstance(loop, ir.For):
                out.append(PlannedSync("flag", s.dst, s.src, ca, cb, s.edge, reverse_loop=loop,
                                       prime_at=tree.outermost_loop_holding(loop), slot=slot, slots=slots,
                                       reason=reason, credit=True))
        up = next((x for x in tree.chain(block)[1:] if isinstance(x, ir.Block)), None)
        if up is None:
            return out
        block = up


def produced_ahead(tree: Tree, e: Edge, a: ir.Stmt, b: ir.Stmt, ahead_ok) -> PlannedSync | None:
    """A dependence between consecutive iterations whose two ends index one tile array with
    slots shifted by the loop variable (software pipelining: iteration i loads the slot
    iteration i + 1 computes on, and frees the slot iteration i + 1 loads into). Per-slot flags
    with the producer's slot at the set and the consumer's at the wait make the consumer wait
    for the instance one iteration earlier, not for the one just issued. Only the first
    iteration's slot is primed and only the last one's drained, since every other set is
    consumed by the next iteration. The loop needs a known trip count (the drained id)."""
    loop = e.carrier
    if loop.trip_count() is None or any(
            _ordinal(inst.dst, loop) - _ordinal(inst.src, loop) != 1 for inst in e.instances):
        return None
    pair = slot_pair(e)
    if pair is None:
        return None
    produced, consumed, slots = pair
    used = produced.free_vars() | consumed.free_vars()
    if loop.var not in used or produced == consumed:
        return None  # the same slot in both: a plain per-slot flag
    if not used <= {x.var for x in tree.loops_around(a) + [loop]}:
        return None  # shifted slots are recognised for loop-variable indices only
    if not (tree.spells(produced, a) and tree.spells(consumed, b)):
        return None
    s = PlannedSync("flag", e.src.pipe, e.dst.pipe, a, b, e, prime_at=loop, slot=produced, slots=slots,
                    wait_slot=consumed, ahead=loop,
                    reason=f"{e.kind.upper()} {e.what}: {e.src.pipe} -> {e.dst.pipe} (produced one iteration ahead)")
    return s if ahead_ok(s) else None


def _ordinal(op, loop: ir.For) -> int:
    return next(k for lid, k in op.iters if lid == id(loop))


def _slot_pairs(e: Edge):
    """(producer's index, consumer's index, slots) for each way the two ends index one tile array
    with non-constant indices."""
    for da in e.dst.tile_args:
        if da.text != e.what:
            continue
        tile, index = root(da.value)
        if index is None or index.is_const or tile.count is None:
            continue
        for sa in e.src.tile_args:
            st, sidx = root(sa.value)
            if st is tile and sidx is not None and not sidx.is_const:
                yield sidx, index, tile.count


def _lane_indices(e: Edge):
    """(producer's index, consumer's index, slots, the lane loop's index) for each way the two ends
    index one tile array whose copies a shared counter names."""
    for da in e.dst.tile_args:
        tile, index = root(da.value)
        lane = tile.lane_index
        if da.text != e.what or not tile.shared_counter or lane is None or lane.is_const:
            continue
        for sa in e.src.tile_args:
            st, sidx = root(sa.value)
            if st is tile and sidx is not None and sidx == index:
                yield sidx, index, tile.count, lane


def slot_pair(e: Edge) -> tuple[Expr, Expr, int] | None:
    """The producer's and the consumer's index into one tile array, when both are slots."""
    return next(_slot_pairs(e), None)


def slot_of(e: Edge) -> tuple[Expr | None, int]:
    """Event ids per slot when both ends index one tile array with the same expression."""
    return next(((index, count) for sidx, index, count in _slot_pairs(e) if sidx == index), (None, 1))
