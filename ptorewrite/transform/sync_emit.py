"""Planned syncs as insert-only source edits, each with a short reason comment."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import BinOp, Const, Expr, Var, affine_normal, binop, cpp_text
from ptorewrite.diagnostics import PtoError
from ptorewrite.parse.invocation import is_bundled
from ptorewrite.transform.edits import Insertion
from ptorewrite.transform.sync_model import PlannedSync, Tree


class HelperCopiesDiffer(PtoError):
    """The copies of a helper inlined at several call sites need different lines inside it;
    `statement` is where: (file, start, end) of the statement the lines go next to."""

    statement: tuple[str, int, int] | None = None


def _strip(text: str) -> str:
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


Spell = Callable[[Expr], str]


def _event_text(s: PlannedSync, spell: Spell, wait: bool = False) -> str:
    slot_expr = s.id_expr(wait)
    if s.spelled_slot is not None:  # one text for every copy of a helper
        slot_expr = s.spelled_wait_slot if wait and s.spelled_wait_slot is not None else s.spelled_slot
        names = {v: v[1:] for v in slot_expr.free_vars()}
        spell = lambda e: cpp_text(e, names)
    if slot_expr is None:
        return f"EVENT_ID{s.event}"
    if s.event:
        slot_expr = BinOp("+", slot_expr, Const(s.event))
    return f"(event_t)({_strip(spell(slot_expr))})"


# The state the front end keeps for an end of a TMPipe (parse.mpipe: `pipe.cons.free`, ...) is
# read in C++ through the end's getters.
_FIFO_STATE = re.compile(r"^(.+)\.(prod|cons)\.(allocate|record|wait|free|tile_id|sub_tile_id)$")
_GETTERS = {"allocate": "getAllocateStatus()", "record": "getRecordStatus()", "wait": "getWaitStatus()",
            "free": "getFreeStatus()", "tile_id": "getTileId()", "sub_tile_id": "getSubTileId()"}


# A TPipe's tile counts (parse.fifo: `pipe.pushed`, `pipe.popped`) through its ends' getters.
_PIPE_COUNT = re.compile(r"^(.+)\.(pushed|popped)$")


def _state_spelling(name: str) -> str:
    m = _FIFO_STATE.match(name)
    if m is not None:
        return f"{m.group(1)}.{m.group(2)}.{_GETTERS[m.group(3)]}"
    m = _PIPE_COUNT.match(name)
    return name if m is None else f"{m.group(1)}.{'prod' if m.group(2) == 'pushed' else 'cons'}.getTileId()"


def _guarded(guard: Expr | None, spell: Spell, code: str) -> str:
    """A set or wait issued only when the other end's `if` runs."""
    return code if guard is None else f"if ({_strip(spell(guard))}) {code}"


def _id_text(e: Expr, spell: Spell) -> str:
    if isinstance(e, Const):
        return f"EVENT_ID{e.value}"
    return f"(event_t)({_strip(spell(e))})"


def emit(kernel: ir.Kernel, syncs: list[PlannedSync], main: str, check_copies: bool = True,
         ran: frozenset[int] | None = None) -> list[Insertion]:
    """Insert-only edits for the planned syncs, each with a short reason. `check_copies`:
    whether the copies of a helper's statements must agree (not for a part of a plan shown
    alone); `ran`: the statements that run in some run (SyncPlan.ran), if known."""
    tree = Tree.of(kernel)
    out: list[tuple[ir.Stmt, Insertion]] = []

    def speller_at(stmt: ir.Stmt) -> Spell:
        """How an event id or guard is spelled next to `stmt` (a helper's parameter inside the
        helper, the caller's variable outside it; a variable a parameter holds shifted by a
        constant through that parameter, folded: Tree.shifts_at)."""
        spelled = {k: _state_spelling(v) for k, v in tree.names_at(stmt).items()}
        shifts = tree.shifts_at(stmt)

        def spell(e: Expr) -> str:
            used = {v: shifts[v] for v in e.free_vars() if v in shifts}
            if not used:
                return cpp_text(e, spelled)
            e = affine_normal(e.subst({v: binop("-", Var("@" + p), Const(c)) for v, (p, c) in used.items()}))
            return cpp_text(e, {**spelled, **{"@" + p: p for p, _ in used.values()}})
        return spell

    def at(stmt: ir.Stmt, where: str, code: str, reason: str, order: int) -> None:
        out.append((stmt, _at(stmt, where, code, reason, main, order)))
        if where == "after" and isinstance(stmt, ir.If) and stmt.exit is not None:
            # After `if (!c) { rest }` from `if (c) return;`: the function's end, on both paths.
            out.append((stmt, Insertion.at(stmt.exit[1], "before", code, reason, order)))

    for s in syncs:
        if s.kind == "barrier":
            reason = s.reason if s.src != "ALL" else s.reason + " (cannot be ordered with flags)"
            at(s.wait_at, "before", f"pipe_barrier(PIPE_{s.src})", reason, 1)
            continue
        args = f"PIPE_{s.src}, PIPE_{s.dst}"
        at(s.set_at, "after", _guarded(s.set_guard, speller_at(s.set_at),
                                       f"set_flag({args}, {_event_text(s, speller_at(s.set_at))})"), s.reason, 2)
        at(s.wait_at, "before", _guarded(s.wait_guard, speller_at(s.wait_at),
                                         f"wait_flag({args}, {_event_text(s, speller_at(s.wait_at), wait=True)})"),
           s.reason, 0)
        what = ", ".join(s.operands[:3]) if s.operands else s.edge.what
        if s.prime_at is None:
            continue
        if s.ahead is not None:
            # The first iteration's slot is primed (its producer runs before the loop); the slot
            # produced in the last iteration is drained.
            (first,), (last,) = s.boundary_ids("before"), s.boundary_ids("after")
            at(s.prime_at, "before", f"set_flag({args}, {_id_text(first, speller_at(s.prime_at))})",
               f"prime: {what} of the first iteration ({s.src} -> {s.dst})", 3)
            at(s.drain_stmt, "after", f"wait_flag({args}, {_id_text(last, speller_at(s.drain_stmt))})",
               f"drain: {what} produced by the last iteration ({s.src} -> {s.dst})", 4)
            continue
        drain_at = s.drain_at if s.drain_at is not None else s.prime_at
        for e in s.boundary_ids("before"):
            evk = _id_text(e, speller_at(s.prime_at))
            at(s.prime_at, "before", f"set_flag({args}, {evk})", f"prime: {what} free at start ({s.src} -> {s.dst})", 3)
            at(drain_at, "after", f"wait_flag({args}, {_id_text(e, speller_at(drain_at))})",
               f"drain: {what} ({s.src} -> {s.dst})", 4)
    out = _phase_ends(kernel, out, main)
    if check_copies:
        split = _check_shared_helpers(kernel, tree, out, ran)
        if split:
            kept = [ins for _, ins in out if (ins.anchor, ins.where) not in split]
            return _dedupe(kept) + [ins for lines in split.values() for ins in lines]
    return _dedupe([ins for _, ins in out])


def _phase_ends(kernel: ir.Kernel, out: list[tuple[ir.Stmt, Insertion]],
                main: str) -> list[tuple[ir.Stmt, Insertion]]:
    """The loops of one MultiBuffered body lowered once per phase share its one `mb.loop(...)`
    statement: a line before it runs before the first phase, one after it after the last. A
    line wanted between two phases (a lane tile the main phase leaves to the epilogue) is
    written inside the body instead, on the iteration it belongs to: after the body when
    `ctx.iter` is the phase's last iteration, before it when it is the phase's first (the
    phases split the iterations, so in every other copy that test is false)."""
    loops: dict[tuple, list[ir.For]] = {}
    for s in ir.walk(kernel.body):
        if isinstance(s, ir.For) and s.phase is not None:
            loops.setdefault(_text_of(s), []).append(s)
    kept: list[tuple[ir.Stmt, Insertion]] = []
    for stmt, ins in out:
        if not (isinstance(stmt, ir.For) and stmt.phase is not None):
            kept.append((stmt, ins))
            continue
        group = sorted(loops[_text_of(stmt)], key=lambda f: f.start.const_value() or 0)
        before = ins.where == "before"
        if stmt is (group[0] if before else group[-1]):
            kept.append((stmt, ins))
            continue
        it = stmt.start.const_value() if before else stmt.stop.const_value() - 1
        if not stmt.cpp_var or any(not f.body.stmts for f in group) or it is None:
            raise PtoError(f"{ins.code} is needed {ins.where} the {stmt.phase} iterations of this MultiBuffered "
                           "loop, between two of its phases, where the source has no statement to write it at",
                           stmt.loc)
        code = f"if ({stmt.cpp_var} == {it}) {ins.code}"
        reason = f"{ins.reason} ({ins.where} the {stmt.phase} iterations)"
        for f in group:
            at = f.body.stmts[0] if before else f.body.stmts[-1]
            kept.append((at, _at(at, ins.where, code, reason, main, ins.order)))
    return kept


def _check_shared_helpers(kernel: ir.Kernel, tree: Tree, out: list[tuple[ir.Stmt, Insertion]],
                          ran: frozenset[int] | None = None) -> dict[tuple[int, str], list[Insertion]]:
    """A helper inlined at several call sites has one source text: every inlined copy of a
    statement must need the same lines next to it, a copy that needs none included, or the edit
    would be wrong for some of them. A copy is the statement in one inlined body of the helper
    (the statements one source statement lowers to, such as a TPOP's wait, copy and release,
    count as one); a copy in a loop of no iterations (at this instantiation), or one no run
    reaches (`ran`: a branch its call never takes, `if (p == 0)` in a call whose p starts at 3),
    never runs and needs nothing in particular. Copies in different instantiations of a helper
    template may differ: their lines become `if constexpr` branches on its parameters (returned
    by place, to replace the lines there)."""
    from ptorewrite.transform.header_edits import constexpr_branches

    copies: dict[tuple, list[ir.Stmt]] = {}
    for s in ir.walk(kernel.body):
        if getattr(s, "loc", None) is not None:
            copies.setdefault(_text_of(s), []).append(s)
    by_place: dict[tuple[int, str], dict[int, list[Insertion]]] = {}
    owner: dict[tuple[int, str], ir.Stmt] = {}
    for stmt, ins in out:
        by_place.setdefault((ins.anchor, ins.where), {}).setdefault(id(copy_of(tree, stmt)), []).append(ins)
        owner.setdefault((ins.anchor, ins.where), stmt)
    split: dict[tuple[int, str], list[Insertion]] = {}
    for place, per_copy in by_place.items():
        stmt = owner[place]
        every: dict[int, ir.Stmt] = {}
        for c in copies.get(_text_of(stmt), [stmt]) if stmt.loc is not None else [stmt]:
            body = id(copy_of(tree, c))
            if body in per_copy or (reached(tree, c) and _may_run(tree, c, ran)):
                every.setdefault(body, c)
        if len(every) < 2:
            continue
        lines = {b: frozenset(i.code for i in per_copy.get(b, ())) for b in every}
        if len(set(lines.values())) < 2:
            continue
        branches = _per_instance(tree, stmt, every, per_copy, constexpr_branches)
        if branches is not None:
            split[place] = branches
            continue
        a = next(b for b in every if lines[b])
        b = next(b for b in every if lines[b] != lines[a])
        differ = HelperCopiesDiffer(
            "this statement is in a helper inlined at several call sites that need different synchronization "
            f"inside it (the copy {_called_at(tree, every[a])} needs {_shown(lines[a])}, the copy "
            f"{_called_at(tree, every[b])} needs {_shown(lines[b])}); inline the helper by hand or give each call "
            "its own helper", stmt.loc)
        differ.statement = (stmt.loc.file, stmt.loc.offset, stmt.loc.end_offset) if stmt.loc is not None else None
        raise differ
    return split


def _per_instance(tree: Tree, stmt: ir.Stmt, every: dict[int, ir.Stmt], per_copy, branches):
    """The lines at a statement whose copies differ, as `if constexpr` branches on the helper
    template's parameters, when every copy is in an instantiation and copies of one
    instantiation agree; else None."""
    keyed: dict = {}
    items: dict = {}
    for body, c in every.items():
        block = copy_of(tree, c)
        inst = getattr(block, "instance", None)
        if inst is None or not inst.body[0] < c.loc.offset < inst.body[1]:
            return None
        mine = sorted(per_copy.get(body, ()), key=lambda i: (i.order, i.code))
        key = tuple(dict.fromkeys(f"{i.order}:{i.code}" for i in mine))
        items.setdefault(key, list({(i.order, i.code): i for i in mine}.values()))
        if keyed.setdefault(inst, key) != key:
            return None
    loc = stmt.loc
    first = next(iter(per_copy.values()))[0]
    return branches((first.file, first.start, first.end, first.where), keyed, items) if loc is not None else None


def copy_of(tree: Tree, s: ir.Stmt) -> ir.Stmt:
    """The inlined helper body (or the loop of one MultiBuffered phase, or the kernel's own body)
    a statement is in: its copy."""
    return next((a for a in tree.chain(s)[1:] if isinstance(a, ir.Block) and a.inlined or
                 isinstance(a, ir.For) and a.phase is not None), tree.chain(s)[-1])


def reached(tree: Tree, s: ir.Stmt) -> bool:
    """Whether control can reach s: not inside a loop of no iterations."""
    return not any(isinstance(a, ir.For) and a.trip_count() == 0 for a in tree.chain(s)[1:])


def _may_run(tree: Tree, s: ir.Stmt, ran: frozenset[int] | None) -> bool:
    """Whether s runs in some run, as far as the traces of the plan tell: every statement of a
    block that runs is marked there (a branch or loop body itself is not, and counts as running)."""
    return ran is None or not isinstance(tree.parent.get(id(s)), ir.Block) or id(s) in ran


def _text_of(s: ir.Stmt) -> tuple:
    return (type(s).__name__, s.loc.file, s.loc.offset, s.loc.end_offset)


def _called_at(tree: Tree, s: ir.Stmt) -> str:
    calls = [f"{a.phase} loop at {a.loc.short}" if isinstance(a, ir.For) else a.loc.short
             for a in tree.chain(s)[1:] if a.loc is not None and
             (isinstance(a, ir.Block) and a.inlined or isinstance(a, ir.For) and a.phase is not None)]
    return "called at " + " from ".join(calls) if calls else "at the top level"


def _shown(lines: frozenset[str]) -> str:
    return "; ".join(sorted(lines)) if lines else "nothing"


def _at(stmt: ir.Stmt, where: str, code: str, reason: str, main: str, order: int) -> Insertion:
    # A block of the function itself (the live branch of `if constexpr`, a `{ ... }` scope)
    # starts on the line of its `{`, which may be `} else {`: write next to its first or last
    # statement instead, inside the block.
    while isinstance(stmt, ir.Block) and not stmt.inlined and stmt.stmts:
        stmt = stmt.stmts[0] if where == "before" else stmt.stmts[-1]
    loc = stmt.loc
    if loc.file != main and is_bundled(loc.file):
        raise PtoError(f"synchronization is needed inside {loc.file}, a header bundled with ptorewrite, which it "
                       "does not edit", loc)
    return Insertion.at(loc, where, code, reason, order)  # in a header of the user's: see rewrite.headers


def _dedupe(ins: list[Insertion]) -> list[Insertion]:
    seen = set()
    out = []
    for i in ins:
        key = (i.file, i.anchor, i.where, i.code)
        if key not in seen:
            seen.add(key)
            out.append(i)
    return _unguard_complements(out)


def _split_guard(code: str) -> tuple[str, str] | None:
    """(condition, statement) of `if (cond) set_flag(...)` / `wait_flag(...)`; None otherwise."""
    if not code.startswith("if ("):
        return None
    at = max(code.rfind(") set_flag("), code.rfind(") wait_flag("))
    return (code[4:at], code[at + 2:]) if at > 4 else None


def _unguard_complements(ins: list[Insertion]) -> list[Insertion]:
    """`if (c) set_flag(x);` and `if (!(c)) set_flag(x);` at one place (a flag per branch of the
    consumer's `if`, both on one id) issue the flag whatever c is: one unguarded line."""
    guarded: dict[tuple, dict[str, Insertion]] = {}
    for i in ins:
        split = _split_guard(i.code)
        if split is not None:
            guarded.setdefault((i.file, i.anchor, i.where, split[1]), {})[split[0]] = i
    merged: dict[int, Insertion | None] = {}
    for (_, _, _, code), by_cond in guarded.items():
        for cond, i in by_cond.items():
            other = by_cond.get(f"!({cond})")
            if other is not None and id(i) not in merged and id(other) not in merged:
                first, second = (i, other) if ins.index(i) < ins.index(other) else (other, i)
                merged[id(first)] = replace(first, code=code)
                merged[id(second)] = None
    return [merged.get(id(i), i) for i in ins if merged.get(id(i), i) is not None]


def conservative_insertions(kernel: ir.Kernel, main: str) -> list[Insertion]:
    """A full barrier after every instruction: a baseline for comparison and bisecting only."""
    return _dedupe([_at(s, "after", "pipe_barrier(PIPE_ALL)", "conservative baseline", main, 0)
                    for s in kernel.instructions()])
