"""One plan for every inlined copy of a helper.

A helper inlined at several call sites has one source text, so every copy of one of its
statements must get the same lines. The planner plans each copy in its own context, and the
copies can come out different:

- the event id: a copy whose tiles alternate gets the rotating id of its lane, a copy whose
  lane the helper cannot spell (its parameter holds `tile_id + 2`, not a variable) or whose
  tiles do not alternate gets a fixed id;
- a flag whose two ends are inside the helper, needed by one copy only (its tiles share bytes
  with another tile there, or its call runs in a loop that returns them to the next iteration);
- a flag with one end inside the helper and the other outside, in one copy only.

`harmonize` makes them one text where it can, checking the whole plan after each step:

1. one id form for the copies of a flag: an id expression in the helper's own terms (its
   parameters and its own loop variables) read at every call site through what the call passes,
   or else the fixed form;
2. a flag with both ends inside the helper added to the copies that lack it (its id and any
   guard on its ends read through each call's arguments), kept only if the plan stays balanced
   and free of deadlock in every copy (it costs an ordering those copies do not need, and a
   warning says so); this step runs again after step 5, whose credits are found in one copy.
   A reverse flag of the loop around one call, added to calls in loops that run after or before
   it, makes one chain with it on its id (one prime before the first loop, one drain after the
   last);
3. a flag with one end inside a copy and the other outside moved to the call: the wait before
   the call, the set after it, where each call site has its own text (it costs the overlap of
   the helper's other work with that dependence, and a warning says so).

What still differs is left to the emitter, which stops with a located error.
"""

from __future__ import annotations

from dataclasses import replace

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, Var, affine_normal, binop, cpp_text
from ptorewrite.transform.sync_check import PlanTrace
from ptorewrite.transform.sync_emit import copy_of, reached
from ptorewrite.transform.sync_model import (
    BadEventId,
    PlannedSync,
    Tree,
    credit_candidates,
    slot_variants,
)


def harmonize(pt: PlanTrace, tree: Tree, flags: list[PlannedSync], warnings: list) -> list[PlannedSync]:
    """The flags with the copies of each helper statement given the same lines where the
    checked plan allows it (see the module doc); what each step costs is added to `warnings`
    as (message, location)."""
    copies = _copies_by_text(tree, pt.kernel)
    if not any(len(v) > 1 for v in copies.values()):
        return flags
    h = _Harmony(pt, tree, copies, warnings)
    flags = h.id_forms(flags)
    flags = h.missing_flags(flags)
    flags = h.prune(flags)
    flags = h.boundary_ends(flags)
    flags = h.shared_ids(flags)
    # A credit that makes a shared id safe is found in one copy's context (settle): written in
    # the helper, every copy runs it.
    flags = h.missing_flags(flags, chained=True)
    return h.redundant(flags)


def barriers_in_every_copy(tree: Tree, kernel: ir.Kernel, barriers: list[PlannedSync],
                           warnings: list) -> list[PlannedSync]:
    """The barriers with each one at a statement of a helper (or of a MultiBuffered body lowered
    once per phase) also written in the running copies that lack it: one text for every copy.
    A barrier only makes its pipe wait for what it has issued, so one a copy does not need
    costs that copy time and nothing else; a warning says where."""
    copies = _copies_by_text(tree, kernel)
    have = {(b.src, text_of(b.wait_at), id(copy_of(tree, b.wait_at))) for b in barriers}
    out = list(barriers)

    def instances(s: ir.Stmt) -> object:
        # Copies in different instantiations of a helper template get lines of their own
        # (`if constexpr` branches on its parameters, sync_emit): only copies of one
        # instantiation share them.
        return next((a.instance for a in tree.chain(s)[1:] if isinstance(a, ir.Block) and a.inlined), None)

    for b in barriers:
        added = False
        mine = instances(b.wait_at)
        for c in copies.get(text_of(b.wait_at), ()) if text_of(b.wait_at) is not None else ():
            key = (b.src, text_of(c), id(copy_of(tree, c)))
            if key in have or not reached(tree, c) or instances(c) != mine:
                continue
            have.add(key)
            out.append(replace(b, wait_at=c))
            added = True
        if added:
            message = (f"pipe_barrier(PIPE_{b.src}) is needed here in some copies of this text only (calls of "
                       "the helper, or phases of the loop); it is written for every copy (one text for every "
                       "copy: the others wait there without need)")
            warnings.append((message, b.wait_at.loc))
    return out


def text_of(s: ir.Stmt) -> tuple | None:
    loc = getattr(s, "loc", None)
    return None if loc is None else (type(s).__name__, loc.file, loc.offset, loc.end_offset)


def _copies_by_text(tree: Tree, kernel: ir.Kernel) -> dict[tuple, list[ir.Stmt]]:
    out: dict[tuple, list[ir.Stmt]] = {}
    for s in ir.walk(kernel.body):
        k = text_of(s)
        if k is not None:
            out.setdefault(k, []).append(s)
    return out


def helper_of(tree: Tree, s: ir.Stmt) -> ir.Block | None:
    """The innermost inlined helper (or lambda) body that holds s."""
    return next((a for a in tree.chain(s)[1:] if isinstance(a, ir.Block) and a.inlined), None)


def in_helper_terms(tree: Tree, e: Expr | None, at: ir.Stmt) -> Expr | None:
    """e (of the IR's variables) written with the names a statement of the helper uses next to
    `at`; None when some variable has no name there."""
    if e is None:
        return None
    names = tree.names_at(at)
    if not e.free_vars() <= names.keys():
        return None
    shifted = tree.shifts_at(at)
    # A variable the helper sees as a parameter minus a constant is written so, and the
    # expression folded: the copies' spellings of one value differ until then.
    env: dict[str, Expr] = {v: binop("-", Var("@" + shifted[v][0]), Const(shifted[v][1])) if v in shifted
                            else Var("@" + names[v]) for v in e.free_vars()}
    return affine_normal(e.subst(env)) if e.free_vars() & shifted.keys() else e.subst(env)


def from_helper_terms(tree: Tree, e: Expr | None, at: ir.Stmt) -> Expr | None:
    """A helper-terms expression read next to `at` in one copy: each parameter is what that call
    passes, each of the helper's own variables that copy's; None when a name is unknown there."""
    if e is None:
        return None
    block = helper_of(tree, at)
    own = {sp: v for v, sp in tree.names_at(at).items() if block is None or v not in block.param_names}
    env: dict[str, Expr] = {}
    for name in e.free_vars():
        spelled = name[1:]
        if block is not None and spelled in block.param_values and spelled not in own:
            env[name] = block.param_values[spelled]
        elif spelled in own:
            env[name] = Var(own[spelled])
        else:
            return None
    return e.subst(env)


class _Harmony:
    def __init__(self, pt: PlanTrace, tree: Tree, copies: dict[tuple, list[ir.Stmt]], warnings: list):
        self.pt, self.tree, self.copies, self.warnings = pt, tree, copies, warnings

    def body(self, s: ir.Stmt) -> ir.Stmt:
        """The inlined helper body (or the kernel's body) s is in: the copy it belongs to."""
        return helper_of(self.tree, s) or self.tree.chain(s)[-1]

    def runs(self, s: ir.Stmt) -> bool:
        return reached(self.tree, s)

    def identity(self, f: PlannedSync) -> tuple:
        """What f is written as: its pipes, the statements of its ends, its ids and guards."""
        def guard(e, at):
            h = in_helper_terms(self.tree, e, at) if e is not None else None
            return None if e is None else cpp_text(h) if h is not None else ("?", id(f))
        return (f.kind, f.src, f.dst, text_of(f.set_at) if f.set_at is not None else None, text_of(f.wait_at),
                self.form(f) if f.kind == "flag" else None, guard(f.set_guard, f.set_at),
                guard(f.wait_guard, f.wait_at))

    def lacking_bodies(self, flags: list[PlannedSync], f: PlannedSync) -> list[ir.Stmt]:
        """One statement like f's set for each running copy of the helper that has no flag
        written like f: the copies to add f to."""
        mine = self.identity(f)
        have = {id(self.body(g.set_at)) for g in flags if g.set_at is not None and self.identity(g) == mine}
        out: dict[int, ir.Stmt] = {}
        depth = len(self.tree.chain(f.set_at))
        for c in self.copies.get(text_of(f.set_at), ()):
            b = id(self.body(c))
            if b in have or not self.runs(c):
                continue
            if b not in out or len(self.tree.chain(c)) == depth:
                out[b] = c
        return list(out.values())

    def consistent(self, flags: list[PlannedSync], f: PlannedSync) -> bool:
        return not self.lacking_bodies(flags, f)

    # -- pruning -----------------------------------------------------------------------------------

    def prune(self, flags: list[PlannedSync]) -> list[PlannedSync]:
        """Flags at a helper's statements whose removal (every copy of one at once) leaves the
        plan checked: a flag another copy's wider flag now covers, one a copy alone had."""
        groups: dict[tuple, list[PlannedSync]] = {}
        for f in flags:
            if f.kind == "flag" and f.set_at is not None and (self.shared(f.set_at) or self.shared(f.wait_at)):
                groups.setdefault(self.identity(f), []).append(f)
        ordered = sorted(groups.values(), key=lambda g: self.consistent(flags, g[0]))
        for group in ordered:
            if self.consistent(flags, group[0]) and all(self.consistent(flags, g) for g in flags
                                                        if g.set_at is not None and self.shared(g.set_at)):
                break
            drop = {id(g) for g in group}
            trial = [g for g in flags if id(g) not in drop]
            if self.strict(trial):
                flags = trial
        return flags

    def redundant(self, flags: list[PlannedSync]) -> list[PlannedSync]:
        """The plan without the flags the rest of it implies, a helper's line in every copy at
        once: the copies were planned apart, and one copy's flag written in every copy can cover
        what another copy's own flag was placed for."""
        groups: dict[tuple, list[PlannedSync]] = {}
        for f in flags:
            # A flag moved to a call (`boundary_ends`) counts too: a flag later written inside
            # the helper for every copy can cover it.
            if f.kind == "flag" and f.set_at is not None and (
                    self.shared(f.set_at) or self.shared(f.wait_at) or self.at_call(f.set_at) or self.at_call(f.wait_at)):
                groups.setdefault(self.identity(f), []).append(f)
        if not self.strict(flags):
            return flags
        for group in groups.values():
            drop = {id(g) for g in group}
            trial = [g for g in flags if id(g) not in drop]
            if self.strict(trial):
                flags = trial
                # What was said of the copies of this flag is said of nothing now.
                said = {(g.set_at.loc, f"this {g.src} -> {g.dst} flag") for g in group}
                self.warnings[:] = [w for w in self.warnings
                                    if not any(w[1] == loc and w[0].startswith(head) for loc, head in said)]
        return flags

    def at_call(self, s: ir.Stmt) -> bool:
        """Whether s is the call of a helper whose body other calls share."""
        return isinstance(s, ir.Block) and s.inlined and any(self.shared(x) for x in s.stmts)

    def strict(self, flags: list[PlannedSync]) -> bool:
        try:
            order = self.pt.order(flags)
        except BadEventId:
            return False
        return not order.flag_problems and not self.pt.unordered(order, self.pt.cross)

    def warn(self, message: str, where) -> None:
        self.warnings.append((message, where))

    def shared(self, s: ir.Stmt | None) -> bool:
        k = text_of(s) if s is not None else None
        return k is not None and len(self.copies.get(k, ())) > 1

    def checks(self, flags: list[PlannedSync]) -> bool:
        return self.settle(flags) is not None

    def settle(self, flags: list[PlannedSync]) -> list[PlannedSync] | None:
        """The plan if it checks, with the credits that make an id shared by two copies safe
        (the later copy's set could land before the earlier copy's wait); None if it does not."""
        for _ in range(8):
            try:
                order = self.pt.order(flags)
            except BadEventId:
                return None
            if not order.flag_problems:
                return None if self.pt.unordered(order, self.pt.cross) else flags
            p = order.flag_problems[0]
            first, second = p.first, p.second
            if p.kind != "unordered-reuse" or not isinstance(first, PlannedSync):
                return None
            try:
                credits = credit_candidates(self.tree, first, False)
                if isinstance(second, PlannedSync) and second is not first:
                    credits += credit_candidates(self.tree, first, False, before=second)
            except KeyError:  # one end holds the other (a flag moved to a call): no credit fits
                return None
            base = self.fresh(flags)
            for c in credits:
                c.event = base
                try:
                    o = self.pt.order(flags + [c])
                except BadEventId:
                    continue
                if len(o.flag_problems) < len(order.flag_problems):
                    flags = flags + [c]
                    break
            else:
                return None
        return None

    def fresh(self, flags: list[PlannedSync]) -> int:
        return max((f.event + f.slots for f in flags if f.kind == "flag"), default=0) + 8

    # -- 1. one id form --------------------------------------------------------------------------

    def form(self, f: PlannedSync) -> tuple:
        """How f's id is written at its set and at its wait, in the helper's terms."""
        def spelled(e, at, written):
            if written is not None:
                return cpp_text(written)
            if e is None:
                return None
            h = in_helper_terms(self.tree, e, at)
            return cpp_text(h) if h is not None else ("?", id(f))
        wait_written = f.spelled_wait_slot if f.spelled_wait_slot is not None else f.spelled_slot
        return (f.slots, f.ahead is None, spelled(f.slot, f.set_at, f.spelled_slot),
                spelled(f.id_expr(True), f.wait_at, wait_written))

    def id_forms(self, flags: list[PlannedSync]) -> list[PlannedSync]:
        groups: dict[tuple, list[PlannedSync]] = {}
        for f in flags:
            if f.kind == "flag" and f.set_at is not None and f.ahead is None and f.set_guard is None \
                    and f.wait_guard is None and (self.shared(f.set_at) or self.shared(f.wait_at)):
                groups.setdefault((f.src, f.dst, text_of(f.set_at), text_of(f.wait_at)), []).append(f)
        for group in groups.values():
            if len(group) < 2 or len({self.form(f) for f in group}) < 2:
                continue
            flags = self._one_form(flags, group)
        return flags

    def _one_form(self, flags: list[PlannedSync], group: list[PlannedSync]) -> list[PlannedSync]:
        trials: list[tuple[Expr | None, Expr | None, int]] = []
        for f in sorted(group, key=lambda f: -f.slots):
            if f.slot is None:
                continue
            hs = in_helper_terms(self.tree, f.slot, f.set_at)
            hw = in_helper_terms(self.tree, f.id_expr(True), f.wait_at)
            if hs is not None and hw is not None and (hs, hw, f.slots) not in trials:
                trials.append((hs, hw, f.slots))
        trials.append((None, None, 1))  # the fixed form
        for hs, hw, slots in trials:
            base = self.fresh(flags)
            new: dict[int, PlannedSync] = {}
            for f in group:
                slot = from_helper_terms(self.tree, hs, f.set_at)
                wait = from_helper_terms(self.tree, hw, f.wait_at)
                if hs is not None and (slot is None or wait is None):
                    break
                new[id(f)] = replace(f, slot=slot, wait_slot=wait if wait != slot else None, slots=slots,
                                     event=base, spelled_slot=hs, spelled_wait_slot=hw if hw != hs else None)
            else:
                trial = self.settle([new.get(id(f), f) for f in flags])
                if trial is not None:
                    return trial
        return flags

    # -- 2. a flag inside the helper that some copies lack ------------------------------------------

    def signature(self, f: PlannedSync, end: str) -> tuple:
        return (end, f.src, f.dst) + self.form(f)[:2] + (self.form(f)[2 if end == "set" else 3],)

    def lacking(self, flags: list[PlannedSync], f: PlannedSync, end: str) -> list[ir.Stmt]:
        """The copies of f's `end` statement that have no flag written like f there."""
        at = f.set_at if end == "set" else f.wait_at
        alike = [g for g in flags if g.kind == "flag" and g.set_at is not None
                 and self.signature(g, end) == self.signature(f, end)]
        if sum((g.set_at if end == "set" else g.wait_at) is at for g in alike) > 1:
            # Several lines like f at its statement: f's counterpart in another copy is the line
            # that protects the same operands (as sync_ids pairs them); without one, f is a
            # line of its copy alone.
            alike = [g for g in alike if g.edge is not None and f.edge is not None and g.edge.what == f.edge.what]
        # By copy of the helper: one call statement can lower to several instructions (a TPOP's
        # wait, load and signal) that share its text, and a line at any of them is the copy's.
        have = {id(self.body(g.set_at if end == "set" else g.wait_at)) for g in alike}
        out: dict[int, ir.Stmt] = {}
        for c in self.copies.get(text_of(at), ()):
            if id(self.body(c)) not in have:
                out.setdefault(id(self.body(c)), c)
        return list(out.values())

    def analog(self, s: ir.Stmt, block: ir.Block, other: ir.Block) -> ir.Stmt | None:
        """The statement of the copy `other` of the helper body `block` that s (inside block) is."""
        depth = self.depth_below(s, block)
        found = [c for c in self.copies.get(text_of(s), ())
                 if other in self.tree.chain(c)[1:] and self.depth_below(c, other) == depth]
        if len(found) > 1:
            # One call the front end lowers into several instructions (a TPOP's wait, load and
            # signal) shares one text: the instruction is the one of the same operation.
            found = [c for c in found if getattr(c, "op", None) == getattr(s, "op", None)]
        return found[0] if len(found) == 1 else None

    def depth_below(self, s: ir.Stmt, block: ir.Block) -> int:
        n = 0
        for a in self.tree.chain(s)[1:]:
            if a is block:
                return n
            if isinstance(a, ir.Block) and a.inlined:
                n += 1
        return -1

    def common_helper(self, a: ir.Stmt, b: ir.Stmt) -> ir.Block | None:
        up = {id(x) for x in self.tree.chain(b)}
        return next((x for x in self.tree.chain(a)[1:] if isinstance(x, ir.Block) and x.inlined and id(x) in up),
                    None)

    def missing_flags(self, flags: list[PlannedSync], chained: bool = False) -> list[PlannedSync]:
        for f in list(flags):
            if f.kind != "flag" or f.set_at is None or f.ahead is not None or not self.shared(f.set_at) \
                    or not self.shared(f.wait_at):
                continue
            if f.drain_at is not None:
                flags = self.missing_counted(flags, f)
                continue
            block = self.common_helper(f.set_at, f.wait_at)
            if block is None or not self.lacking_bodies(flags, f):
                continue
            inside = [x for x in (f.prime_at, f.reverse_loop) if x is not None]
            outer = self.outer_loop(f, block)
            if outer is None and any(block not in self.tree.chain(x) for x in inside):
                continue
            if outer is not None:
                inside = []
            added = []
            # Per added copy: the outermost statement holding its own loop where f's prime does
            # not hold that loop, else None.
            brackets: list[ir.Stmt | None] = []
            targets = [t for t in self.lacking_bodies(flags, f) if not self.has_lanes_for(flags, f, t)]
            if not targets:
                continue
            for t in targets:
                other = self.same_depth_block(t, f.set_at, block)
                if other is None:
                    break
                ends = [self.analog(x, block, other) for x in (f.set_at, f.wait_at, *inside)]
                bracket = None
                if outer is not None:
                    # A flag carried by the loop around the call: the other copy's is carried by
                    # the loop around its own call, on the same id. Where f's prime and drain
                    # hold that loop too, they open and close the one chain of sets and waits
                    # through every copy; loops they do not hold (the calls in loops that run one
                    # after another) are joined into one chain below. The trace check proves it
                    # or rejects the addition.
                    loop = next((a for a in self.tree.chain(other)[1:] if isinstance(a, ir.For)), None)
                    ends += [loop, loop]
                    if loop is not None and not any(a is f.prime_at for a in self.tree.chain(loop)):
                        bracket = self.tree.outermost_loop_holding(loop)
                if any(e is None for e in ends):
                    break
                hs = f.spelled_slot if f.spelled_slot is not None else in_helper_terms(self.tree, f.slot, f.set_at)
                hw = f.spelled_wait_slot if f.spelled_wait_slot is not None else \
                    in_helper_terms(self.tree, f.wait_slot, f.wait_at)
                slot = from_helper_terms(self.tree, hs, ends[0])
                wait = from_helper_terms(self.tree, hw, ends[1])
                if (f.slot is not None and slot is None) or (f.wait_slot is not None and wait is None):
                    break
                # A guarded end (`if (((step + 1) % 2) == 0) set_flag(...)`: the next call loads)
                # is read through the other call's arguments like the id; the trace check decides
                # whether it holds there.
                guards = [from_helper_terms(self.tree, in_helper_terms(self.tree, g, at), end)
                          for g, at, end in ((f.set_guard, f.set_at, ends[0]), (f.wait_guard, f.wait_at, ends[1]))]
                if any(g is not None and h is None for g, h in zip((f.set_guard, f.wait_guard), guards)):
                    break
                prime = ends[2] if f.prime_at is not None and outer is None else None
                loop = ends[-1] if f.reverse_loop is not None else None
                brackets.append(bracket)
                added.append(replace(f, set_at=ends[0], wait_at=ends[1], prime_at=prime, reverse_loop=loop,
                                     slot=slot, wait_slot=wait, set_guard=guards[0], wait_guard=guards[1], spelled_slot=hs if slot is not None else None,
                                     spelled_wait_slot=hw if wait is not None else None))
            else:
                trial = None
                if chained and any(b is not None for b in brackets):
                    # In the pass after `shared_ids`, copies in loops f's prime does not hold are
                    # bracketed around their own loops and made one chain with f on its id
                    # (`chain`: a next loop's prime could land while the drain before it is
                    # still pending).
                    bracketed = [a if b is None else replace(a, prime_at=b) for b, a in zip(brackets, added)]
                    primed = [f] + [a for b, a in zip(brackets, bracketed) if b is not None]
                    trial = self.chain(flags + bracketed, primed, f.event)
                    if trial is not None:
                        added = bracketed
                if trial is None and added:
                    trial = self.settle(flags + added)
                if trial is not None:
                    # A copy whose own plan has the flag, set inside the statement where the one
                    # text sets it, needs it: only the others run an ordering they do not need.
                    needless = [a for a in added if not any(self.same_ordering(g, f, a) for g in flags)]
                    flags = trial
                    if needless:
                        where = ", ".join(sorted({_call_site(self.tree, a.set_at) for a in needless}))
                        self.warn(f"this {f.src} -> {f.dst} flag is needed by the helper's call at "
                                  f"{_call_site(self.tree, f.set_at)}; its copies {where} run it too (one text "
                                  "for every call: an ordering they do not need)", f.set_at.loc)
        return flags

    def has_lanes_for(self, flags: list[PlannedSync], f: PlannedSync, t: ir.Stmt) -> bool:
        """Whether the copy holding t orders f's dependence with a per-lane flag of its own at
        the same statements while f has one id: a steady loop's single tile needs one id where
        the prologue's alternating tiles take one per lane. Written in every copy, f would hold
        each of the prologue's loads until the other lane's reader is done, and take an id of
        its own beside the lanes' in every copy; left to its own copy, it is moved to that
        copy's call (`boundary_ends`), and the per-lane flag, added to f's copy, is the one text
        inside the helper."""
        if f.slots != 1 or f.slot is not None:
            return False
        body = self.body(t)
        return any(g.kind == "flag" and g.slots > 1 and (g.src, g.dst) == (f.src, f.dst) and g.set_at is not None
                   and text_of(g.set_at) == text_of(f.set_at) and text_of(g.wait_at) == text_of(f.wait_at)
                   and self.body(g.set_at) is body for g in flags)

    def same_ordering(self, g: PlannedSync, f: PlannedSync, a: PlannedSync) -> bool:
        """g, a flag of a copy's own plan, is what `a` (f written in that copy) is there, set at the
        end of a statement that holds g's set: the same pipes, waited at the same statement, set
        at g's statement or after the `if` or loop around it (the copy's constant argument decided
        the `if`, so its plan set the flag inside it)."""
        return g.kind == "flag" and g.src == f.src and g.dst == f.dst and g.wait_at is a.wait_at and \
            g.set_at is not None and any(x is a.set_at for x in self.tree.chain(g.set_at))

    def missing_counted(self, flags: list[PlannedSync], f: PlannedSync) -> list[PlannedSync]:
        """A flag on a helper's counted copies (sync_model.counted_candidate) in every other run
        of its lines: each copy waits on and sets the id of its own copy (its own counter), with
        no prime or drain of its own, since f's prime and drain bracket every run of the helper."""
        added = []
        for t in self.lacking_bodies(flags, f):
            body = self.body(t)
            set_at = next((c for c in self.copies.get(text_of(f.set_at), ()) if self.body(c) is body), None)
            wait_at = next((c for c in self.copies.get(text_of(f.wait_at), ()) if self.body(c) is body), None)
            if set_at is None or wait_at is None:
                return flags
            step = self.tree.parent.get(id(wait_at))
            first = step.stmts[0] if isinstance(step, ir.Block) and step.stmts else None
            if not isinstance(first, ir.Assign) or self.tree.parent.get(id(set_at)) is not step:
                return flags
            added.append(replace(f, set_at=set_at, wait_at=wait_at, prime_at=None, drain_at=None,
                                 slot=Var(first.var), spelled_slot=None, spelled_wait_slot=None))
        trial = self.settle(flags + added) if added else None
        return trial if trial is not None else flags

    def outer_loop(self, f: PlannedSync, block: ir.Block) -> ir.For | None:
        """The loop that carries f when it is the innermost loop around the helper's call (f is
        its reverse flag, primed and drained outside the helper); None otherwise."""
        loop = f.reverse_loop
        if loop is None or f.prime_at is None or block in self.tree.chain(loop) or \
                block in self.tree.chain(f.prime_at):
            return None
        around = next((a for a in self.tree.chain(block)[1:] if isinstance(a, ir.For)), None)
        return loop if around is loop else None

    def same_depth_block(self, t: ir.Stmt, s: ir.Stmt, block: ir.Block) -> ir.Block | None:
        """The helper body around t that corresponds to `block` around s."""
        depth = self.depth_below(s, block)
        n = 0
        for a in self.tree.chain(t)[1:]:
            if isinstance(a, ir.Block) and a.inlined:
                if n == depth:
                    return a
                n += 1
        return None

    # -- 5. one id for flags that share a line ---------------------------------------------------

    def shared_ids(self, flags: list[PlannedSync]) -> list[PlannedSync]:
        """Flags of different copies that share one end's line (the wait inside the helper, the
        sets at each call) must share its id: given one provisional id, with a credit between
        them where one copy's set could land before the other's wait; where no credit makes that
        safe, the shared end goes to each call instead."""
        from ptorewrite.transform.sync_ids import _copies

        for group in _copies([f for f in flags if f.kind == "flag"]):
            if len(group) < 2 or len({f.event for f in group}) < 2 or len({f.slots for f in group}) > 1:
                continue
            base = self.fresh(flags)
            trial = [replace(f, event=base) if any(f is g for g in group) else f for f in flags]
            settled = self.settle(trial)
            if settled is None:
                settled = self.chain(flags, group, base)
            if settled is not None:
                flags = settled
                continue
            moved = []
            for f in group:
                ends = {}
                for end, at in (("set", f.set_at), ("wait", f.wait_at)):
                    if self.shared(at):
                        call = next((a for a in self.tree.chain(at)[1:] if isinstance(a, ir.Block) and a.inlined
                                     and not self.shared(a)), None)
                        if call is None:
                            break
                        ends[f"{end}_at"] = call
                else:
                    moved.append(replace(f, spelled_slot=None, spelled_wait_slot=None, **ends))
                    continue
                break
            else:
                trial = [moved[[id(g) for g in group].index(id(f))] if any(f is g for g in group) else f
                         for f in flags]
                settled = self.settle(trial)
                if settled is not None:
                    flags = settled
                    f = group[0]
                    self.warn(f"the {f.src} -> {f.dst} flags ({f.edge.what}) of the helper's calls cannot share one "
                              "event id; they are written at each call instead of inside the helper (less overlap "
                              "there)", f.wait_at.loc)
        return flags

    def chain(self, flags: list[PlannedSync], group: list[PlannedSync], base: int) -> list[PlannedSync] | None:
        """The group's copies on one id as one chain, or None: copies whose loops run one after
        another (a prologue loop, a steady loop, an epilogue loop) each prime their flag before
        their loop and drain it after (or all before and after the one block that holds their
        loops), so one copy's prime could land while the previous copy's drain is still pending,
        and a shared id fails the check. As one chain the first copy's prime and the last copy's
        drain bracket them all, and the signals each copy leaves pending are what the next copy's
        first waits take (the credit between them: a copy's first load of a lane waits for the
        previous copy's last reader of that lane, where its own drain and the next prime would
        have made it wait for every lane)."""
        primed = [f for f in group if f.prime_at is not None and f.drain_at is None]
        if len(primed) < 2 or any(f.ahead is not None for f in group) or \
                len({id(self.tree.parent.get(id(f.prime_at))) for f in primed}) > 1:
            return None
        # Copies primed before one statement (the outermost statement of the function holding
        # each copy's loop) share one bracket already: the chain keeps the prime of the copy
        # that runs first.
        primed.sort(key=lambda f: (self.tree.order[id(f.prime_at)], self.tree.order[id(f.wait_at)]))
        first, last = primed[0], primed[-1]
        new = {id(f): replace(f, event=base, prime_at=None) for f in primed[1:]}
        new[id(first)] = replace(first, event=base, drain_at=last.prime_at)
        trial = [new.get(id(f), replace(f, event=base) if any(f is g for g in group) else f) for f in flags]
        return self.settle(trial)

    # -- 3. a flag with one end inside a copy ------------------------------------------------------

    def boundary_ends(self, flags: list[PlannedSync]) -> list[PlannedSync]:
        for i, f in enumerate(list(flags)):
            if f.kind != "flag" or f.set_at is None or f.ahead is not None:
                continue
            moved = f
            for end in ("set", "wait"):
                at = moved.set_at if end == "set" else moved.wait_at
                if not self.shared(at) or not self.lacking(flags, moved, end):
                    continue
                call = next((a for a in self.tree.chain(at)[1:] if isinstance(a, ir.Block) and a.inlined
                             and not self.shared(a)), None)
                if call is None:
                    break
                moved = replace(moved, **({"set_at": call} if end == "set" else {"wait_at": call}),
                                spelled_slot=None, spelled_wait_slot=None)
                if (moved.slot is not None and not self.tree.spells(moved.slot, moved.set_at)) or \
                        (moved.wait_slot is not None and not self.tree.spells(moved.wait_slot, moved.wait_at)):
                    break
            else:
                if moved is f:
                    continue
                trial = None
                for candidate in [*self.per_slot(flags, f, moved), moved]:
                    trial = flags[:]
                    trial[trial.index(f)] = candidate
                    trial = self.settle(trial)
                    if trial is not None:
                        moved = candidate
                        break
                if trial is not None:
                    flags = trial
                    ends = [w for w, moves in (("set after", moved.set_at is not f.set_at),
                                               ("waited before", moved.wait_at is not f.wait_at)) if moves]
                    call = moved.set_at if moved.set_at is not f.set_at else moved.wait_at
                    self.warn(f"the {f.src} -> {f.dst} flag ({f.edge.what}) is needed at one call of the helper only; "
                              f"it is {' and '.join(ends)} the call at {call.loc.short} instead of inside the helper "
                              "(one text for every call: less overlap there)",
                              (f.set_at if moved.set_at is not f.set_at else f.wait_at).loc)
        return flags


    def per_slot(self, flags: list[PlannedSync], f: PlannedSync, moved: PlannedSync) -> list[PlannedSync]:
        """`moved` with an id per slot of a multi-buffer where its ends, now at the calls, can name
        the slot: inside the helper the slot could not be spelled (one text for every call), so f
        was planned with one id, which holds each iteration's load until the previous slot's
        reader is done. At the call the slot is in scope, and the slots overlap again."""
        if f.slot is not None or f.slots != 1 or f.ahead is not None or f.set_guard is not None \
                or f.wait_guard is not None:
            return []
        out = []
        for set_slot, wait_slot, slots in slot_variants(f.edge, False):
            if set_slot is None or not (self.tree.spells(set_slot, moved.set_at)
                                        and self.tree.spells(wait_slot, moved.wait_at)):
                continue
            out.append(replace(moved, slot=set_slot, wait_slot=wait_slot if wait_slot is not set_slot else None,
                               slots=slots, event=self.fresh(flags)))
        return out


def _call_site(tree: Tree, s: ir.Stmt) -> str:
    block = helper_of(tree, s)
    return block.loc.short if block is not None and block.loc is not None else "?"
