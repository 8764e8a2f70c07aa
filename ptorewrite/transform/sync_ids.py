"""Real event ids for planned flags: 0..7 per (source, destination) pipe pair.

Flags whose set..wait spans overlap on some path get different ids. Sharing an id is also
refused when the checked plan shows that one flag's set is not ordered after the other's wait
(the set could land while the flag still holds the other's signal); the constraint is learned
from the check and the ids are assigned again. Ids are kept distinct across destinations of one
source pipe when they fit (shared ids across destinations have been reported to hang hardware),
then shared within a pipe pair, then never shared. When a pair cannot fit, the caller plans that
pair again with one id per sync, and as a last resort orders a dependence with
pipe_barrier(PIPE_ALL), with a warning.

A helper inlined at several call sites has one source text, so the copies of one flag (the same
pipes and slots, set and waited at the same source statements) are given one base id together:
the first id every copy can take. When no id suits them all, each copy is given its own (and the
emitted lines then differ between the call sites, which the rewrite refuses with a located error).
"""

from __future__ import annotations

from ptorewrite.diagnostics import PtoError
from ptorewrite.transform.sync_check import PlanTrace
from ptorewrite.transform.sync_model import PlannedSync

SHARING = ("source", "pair", "none")


class EventsExhausted(PtoError):
    """A pipe pair cannot fit its flags (`sync`: which flag failed, when known)."""

    def __init__(self, message: str, pair: tuple[str, str], loc=None, sync: PlannedSync | None = None,
                 problem: str = ""):
        super().__init__(message, loc)
        self.loc = loc
        self.pair = pair
        self.sync = sync
        # Every flag found an id, but the plan does not check with them (a flag problem that
        # keeping two flags apart does not cure): what the check found, for the warning.
        self.problem = problem


def allocate_events(pt: PlanTrace, syncs: list[PlannedSync], num_ids: int) -> None:
    """Give every flag in `syncs` its real base id, or raise EventsExhausted."""
    flags = [s for s in syncs if s.kind == "flag"]
    if not flags:
        return
    spans: dict[int, list[tuple[int, int]]] = {id(s): [] for s in flags}
    for origin, set_pos, wait_pos in pt.order(syncs, check_flags=False).spans:
        if id(origin) in spans:
            spans[id(origin)].append((set_pos, wait_pos))
    apart: set[frozenset[int]] = set()  # pairs of flags that must not share an id
    # The copies of one flag written as one text are not kept apart for their spans: they must
    # share an id to be one text (ids of their own make the copies' lines differ), and copies
    # chained through one id (a copy carried by the loop around its call, copies in loops that
    # run one after another: helper_copies) overlap by construction, one copy's sets taken by
    # the next copy's waits, across the slots. The check below decides whether the shared id
    # holds, and keeps apart what it refuses.
    group_of = {id(s): n for n, group in enumerate(_copies(flags)) for s in group}
    for s in flags:
        for o in flags:
            if s is not o and (s.src, s.dst) == (o.src, o.dst) and group_of[id(s)] != group_of[id(o)] \
                    and _overlap(spans[id(s)], spans[id(o)]) and not _counted_copies(s, o):
                apart.add(frozenset((id(s), id(o))))
    before = pt.order(syncs)
    left = pt.unordered(before, pt.cross)
    if before.flag_problems or left:
        why = f"{before.flag_problems[0].kind} on {before.flag_problems[0].key}" if before.flag_problems else \
            f"{left[0].kind} {left[0].what} {left[0].src.op}@{left[0].src.loc.short} -> {left[0].dst.op}@" \
            f"{left[0].dst.loc.short} unordered"
        raise PtoError(f"internal error: the planned synchronization does not check out before event ids are "
                       f"allocated: {why}", flags[0].wait_at.loc)
    saved = {id(s): s.event for s in flags}
    problem = ""
    for _ in range(len(flags) * len(flags) + 1):
        failed: PlannedSync | None = None
        learned = False
        for share in SHARING:
            failed = _assign(flags, share, apart, num_ids)
            if failed is not None:
                continue
            order = pt.order(syncs)
            if not order.flag_problems and not pt.unordered(order, pt.cross):
                return
            if order.flag_problems:
                p = order.flag_problems[0]
                problem = f"{p.kind} on {p.key[0]} -> {p.key[1]}"
            for p in order.flag_problems:
                a, b = p.first, p.second
                if isinstance(a, PlannedSync) and isinstance(b, PlannedSync) and a is not b \
                        and frozenset((id(a), id(b))) not in apart:
                    apart.add(frozenset((id(a), id(b))))
                    learned = True
            if learned:
                break
        if not learned:
            break
    for s in flags:
        s.event = saved[id(s)]
    crowded = (failed.src, failed.dst) if failed is not None else \
        max({(f.src, f.dst) for f in flags}, key=lambda p: sum(f.slots for f in flags if (f.src, f.dst) == p))
    raise EventsExhausted(f"more than {num_ids} live events on {crowded[0]} -> {crowded[1]}", crowded,
                          failed.wait_at.loc if failed is not None else None, failed,
                          problem if failed is None else "")


def _counted_copies(s: PlannedSync, o: PlannedSync) -> bool:
    """Two copies of one flag on a helper's counted copies (sync_model.counted_candidate): each
    run waits on and sets its own copy's id, so their spans interleave by design."""
    return s.counted and o.counted and _where(s.set_at) == _where(o.set_at) and _where(s.wait_at) == _where(o.wait_at)


def _overlap(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> bool:
    if not a or not b:
        return False
    a, b = sorted(a), sorted(b)
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][0] < b[j][1] and b[j][0] < a[i][1]:
            return True
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return False


def _copies(flags: list[PlannedSync]) -> list[list[PlannedSync]]:
    """The flags grouped by the source text they are written as: the inlined copies of one flag
    of a helper fall in one group, and so do flags that share one end's line in different
    copies (a flag whose set one copy writes inside the helper and another at its call still
    waits with one line); every other flag is a group of its own."""
    parent = list(range(len(flags)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    ends: dict[tuple, list[int]] = {}
    for i, s in enumerate(flags):
        for end, stmt, guard in (("set", s.set_at, s.set_guard), ("wait", s.wait_at, s.wait_guard)):
            # A guarded line (`if (...) set_flag(...)`) is not the plain line beside it at the
            # same statement: two flags set after one statement, one of them guarded, are two
            # lines, each shared by its own copies (compute_pv's guarded FIFO flag and plain
            # operand flag after its TPOP).
            ends.setdefault((s.src, s.dst, s.slots, end, _where(stmt), guard is not None), []).append(i)
    for (_, _, _, end, _, _), members in ends.items():
        at = {i: id(flags[i].set_at if end == "set" else flags[i].wait_at) for i in members}
        if len(set(at.values())) == len(members):
            for i in members[1:]:
                parent[find(i)] = find(members[0])
            continue
        # Several such lines at one copy's statement: each is one text with the line of another
        # copy that protects the same operands; a line only one copy has stays alone (the
        # helper's steady-loop call sets a flag for its single tile after compute_pv's matmul,
        # beside the flag for the operand every call sets there).
        by_what: dict[str, list[int]] = {}
        for i in members:
            by_what.setdefault(flags[i].edge.what if flags[i].edge is not None else "", []).append(i)
        for same in by_what.values():
            for i in same[1:]:
                if at[i] != at[same[0]]:
                    parent[find(i)] = find(same[0])
    # A flag that takes over an earlier loop's lane ids (PlannedSync.rides) shares them (the
    # earlier flag as planned, or what a later step made of it: the same loop and lanes).
    for i, s in enumerate(flags):
        r = s.rides
        if r is None:
            continue
        for j, o in enumerate(flags):
            if o is r or (o.reverse_loop is r.reverse_loop and (o.src, o.dst, o.slots, o.slot) ==
                          (r.src, r.dst, r.slots, r.slot)):
                parent[find(i)] = find(j)
    groups: dict[int, list[PlannedSync]] = {}
    for i, s in enumerate(flags):
        groups.setdefault(find(i), []).append(s)
    return list(groups.values())


def _where(stmt) -> tuple[str, int, int] | None:
    if stmt is None:
        return None
    if stmt.loc is None:  # a statement of no source text (a pipe's own step): itself alone
        return ("", id(stmt), 0)
    return (stmt.loc.file, stmt.loc.offset, stmt.loc.end_offset)


def _assign(flags: list[PlannedSync], share: str, apart: set[frozenset[int]], num_ids: int) -> PlannedSync | None:
    """Ids for every flag under one sharing rule; returns the first flag that does not fit."""
    chosen: dict[int, range] = {}

    def fits(s: PlannedSync, ids: range) -> bool:
        return all(_compatible(s, o, ids, chosen[id(o)], share, apart) for o in flags if id(o) in chosen)

    # The flags on a helper's counted copies first: they are live from the kernel's first run of
    # the helper to its last, so they take the lowest ids whatever else the kernel plans, and
    # the kernels of one file that share the helper's text write its lines alike.
    for group in sorted(_copies(flags), key=lambda g: not any(s.counted for s in g)):
        slots = group[0].slots
        for base in range(num_ids - slots + 1):  # one id for every copy, the copies sharing it
            ids = range(base, base + slots)
            if all(fits(s, ids) and all(_compatible(s, o, ids, ids, share, apart) for o in group if o is not s)
                   for s in group):
                for s in group:
                    chosen[id(s)] = ids
                break
        else:
            for s in group:  # no common id: each copy its own
                for base in range(num_ids - s.slots + 1):
                    ids = range(base, base + s.slots)
                    if fits(s, ids):
                        chosen[id(s)] = ids
                        break
                else:
                    return s
    for s in flags:
        s.event = chosen[id(s)].start
    return None


def _compatible(s: PlannedSync, o: PlannedSync, ids: range, o_ids: range, share: str, apart) -> bool:
    if o.src != s.src or not set(ids) & set(o_ids):
        return True
    if ids == o_ids and _counted_copies(s, o):
        return True  # one text: the copies take the same ids under every rule
    if o.dst != s.dst:
        return share != "source"
    return share != "none" and frozenset((id(s), id(o))) not in apart
