"""Planned syncs as insert-only source edits, each with a short reason comment."""

from __future__ import annotations

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Expr, cpp_text
from ptorewrite.diagnostics import PtoError
from ptorewrite.transform.edits import Insertion
from ptorewrite.transform.sync_model import PlannedSync


def _strip(text: str) -> str:
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


def _event_text(s: PlannedSync, names: dict[str, str], wait: bool = False) -> str:
    slot_expr = s.id_expr(wait)
    if slot_expr is None:
        return f"EVENT_ID{s.event}"
    slot = _strip(cpp_text(slot_expr, names))
    return f"(event_t)({slot} + {s.event})" if s.event else f"(event_t)({slot})"


def _id_text(e: Expr, names: dict[str, str]) -> str:
    if isinstance(e, Const):
        return f"EVENT_ID{e.value}"
    return f"(event_t)({_strip(cpp_text(e, names))})"


def emit(kernel: ir.Kernel, syncs: list[PlannedSync], main: str) -> list[Insertion]:
    """Insert-only edits for the planned syncs, each with a short reason."""
    names = {s.var: s.cpp_var for s in ir.walk(kernel.body) if isinstance(s, ir.For) and s.cpp_var}
    out: list[tuple[ir.Stmt, Insertion]] = []

    def at(stmt: ir.Stmt, where: str, code: str, reason: str, order: int) -> None:
        out.append((stmt, _at(stmt, where, code, reason, main, order)))

    for s in syncs:
        if s.kind == "barrier":
            reason = s.reason if s.src != "ALL" else s.reason + " (cannot be ordered with flags)"
            at(s.wait_at, "before", f"pipe_barrier(PIPE_{s.src})", reason, 1)
            continue
        args = f"PIPE_{s.src}, PIPE_{s.dst}"
        at(s.set_at, "after", f"set_flag({args}, {_event_text(s, names)})", s.reason, 2)
        at(s.wait_at, "before", f"wait_flag({args}, {_event_text(s, names, wait=True)})", s.reason, 0)
        what = ", ".join(s.operands[:3]) if s.operands else s.edge.what
        if s.prime_at is None:
            continue
        if s.ahead is not None:
            # The first iteration's slot is primed (its producer runs before the loop); the slot
            # produced in the last iteration is drained.
            (first,), (last,) = s.boundary_ids("before"), s.boundary_ids("after")
            at(s.prime_at, "before", f"set_flag({args}, {_id_text(first, names)})",
               f"prime: {what} of the first iteration ({s.src} -> {s.dst})", 3)
            at(s.prime_at, "after", f"wait_flag({args}, {_id_text(last, names)})",
               f"drain: {what} produced by the last iteration ({s.src} -> {s.dst})", 4)
            continue
        for e in s.boundary_ids("before"):
            evk = _id_text(e, names)
            at(s.prime_at, "before", f"set_flag({args}, {evk})", f"prime: {what} free at start ({s.src} -> {s.dst})", 3)
            at(s.prime_at, "after", f"wait_flag({args}, {evk})", f"drain: {what} ({s.src} -> {s.dst})", 4)
    _check_shared_helpers(out)
    return _dedupe([ins for _, ins in out])


def _check_shared_helpers(out: list[tuple[ir.Stmt, Insertion]]) -> None:
    """A helper inlined at several call sites has one source text: every inlined copy must
    need the same lines at the same place, or the edit would be wrong for some of them."""
    by_place: dict[tuple[int, str], dict[int, set[str]]] = {}
    stmts: dict[int, ir.Stmt] = {}
    for stmt, ins in out:
        by_place.setdefault((ins.anchor, ins.where), {}).setdefault(id(stmt), set()).add(ins.code)
        stmts[id(stmt)] = stmt
    for per_copy in by_place.values():
        if len(per_copy) > 1 and len({frozenset(v) for v in per_copy.values()}) > 1:
            stmt = stmts[next(iter(per_copy))]
            raise PtoError("this statement is in a helper inlined at several call sites that need different "
                           "synchronization inside it; inline the helper by hand or give each call its own "
                           "helper", stmt.loc)


def _at(stmt: ir.Stmt, where: str, code: str, reason: str, main: str, order: int) -> Insertion:
    # A block of the function itself (the live branch of `if constexpr`, a `{ ... }` scope)
    # starts on the line of its `{`, which may be `} else {`: write next to its first or last
    # statement instead, inside the block.
    while isinstance(stmt, ir.Block) and not stmt.inlined and stmt.stmts:
        stmt = stmt.stmts[0] if where == "before" else stmt.stmts[-1]
    loc = stmt.loc
    if loc.file != main:
        raise PtoError(f"synchronization is needed inside {loc.file}, which ptorewrite does not edit; "
                       "move the helper into the kernel file", loc)
    return Insertion.at(loc, where, code, reason, order)


def _dedupe(ins: list[Insertion]) -> list[Insertion]:
    seen = set()
    out = []
    for i in ins:
        key = (i.anchor, i.where, i.code)
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out


def conservative_insertions(kernel: ir.Kernel, main: str) -> list[Insertion]:
    """A full barrier after every instruction: a baseline for comparison and bisecting only."""
    return _dedupe([_at(s, "after", "pipe_barrier(PIPE_ALL)", "conservative baseline", main, 0)
                    for s in kernel.instructions()])
