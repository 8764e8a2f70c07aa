"""Concurrent pipes: flag matching, happens-before, and the race and deadlock checker.

The scalar unit issues the trace in program order; every step goes to its pipe's in-order queue
(set_flag to its source pipe, wait_flag to its destination pipe, pipe_barrier(P) to P). Pipes
advance independently.

Flags (one bit per (src, dst, event id))
-----------------------------------------
Matched in issue order: a wait takes the pending set of its flag; a wait issued before any set
stays pending and takes the next set (its pipe stalls until then). A set issued while the flag
already holds an unconsumed set may fire before that set's wait runs, so the second signal can be
lost: reported. So is a set issued after that wait but not ordered after it by happens-before: a
set issued later can still fire first when the waiting pipe is busy (the same condition as the sync
planner's, `analysis.hb`), unless that wait was on PIPE_S: the scalar unit issues nothing until it is
satisfied. A wait that no set ever satisfies and a flag still set at the end are reported.
This issue-order model is timing independent: it flags every lost signal some timing could cause.

Happens-before ("A completes before B starts")
-----------------------------------------------
Vector clocks with one entry per pipe; entry p of a clock counts the ops of pipe p known to be
complete. Steps are processed pipe by pipe in queue order (any order consistent with the queues,
the matched flags and the scalar unit's stalls), keeping `front[p]`, the knowledge every later step
of pipe p inherits:
* op on p: clock = front[p]; its epoch is (p, index among p's ops).
* set_flag on P: fires after every earlier P op completed: clock = front[P] + {P: ops so far}.
* wait_flag on Q: front[Q] joins the matched set's clock.
* pipe_barrier(P): front[P][P] = ops of P so far. pipe_barrier(PIPE_ALL): every front gets the
  join of all pipes' completions, and the scalar unit stalls on it.
* Steps on PIPE_S (scalar-unit ops, wait_flag(..., PIPE_S)) stall the scalar unit: every step
  issued later inherits their completion. The scalar unit's stores into a buffer do not: a later
  instruction of another pipe needs a flag from PIPE_S (or a barrier) to see them.
A happens before B iff B's clock[pipe(A)] > epoch index of A. Entries only ever come from sets and
barriers, which cover every earlier op of a pipe, so the clocks are prefix-closed.

An op whose pto-isa implementation issues a barrier of its own pipe part way through
(`Step.barrier_inside`: a2a3's float row reductions after all their work, its row broadcasts of a
column vector between broadcasting it and computing) counts as two ops of the pipe: its `early`
accesses, the barrier, then the rest.

Same pipe, no barrier: in program order, which orders the access pair unless the architecture
lists that hazard kind in ArchProfile.same_pipe_barrier (a2a3 V: raw/war/waw; MTE2/MTE3: waw).
Consecutive matmuls into one L0C tile are ordered on PIPE_M (in-order accumulation).

A race: two accesses to overlapping bytes (one buffer, or one GM argument), at least one a
write, neither ordered before the other.

Clusters (`emulator.cluster`): the trace holds the steps of several cores; every queue, scalar
stall, PIPE_ALL barrier and flag belongs to its core (`Step.lane`, `Step.flag`). A cross-core
wait (`xwait`) is matched with the set of the same semaphore of the same rank (a counting
semaphore, see `semaphore`), and is otherwise handled as a wait: it joins the set's clock.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ptorewrite.analysis.execution import Access, Step, Trace, located
from ptorewrite.analysis.unit_flags import STORE_PHASES, is_unit_flag_event, region_of
from ptorewrite.arch import CROSS_CORE_SEMAPHORE_LIMIT, ArchProfile
from ptorewrite.diagnostics import Diagnostic, to_location

PIPES = ("S", "V", "MTE1", "MTE2", "MTE3", "M", "FIX")
PIPE_INDEX = {p: i for i, p in enumerate(PIPES)}
MATMULS = frozenset({"TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TMATMUL_MX", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS",
                     "TGEMV_MX", "TMATMUL_MX_ACC", "TGEMV_MX_ACC"})
# Matmuls that add to their destination: in-order accumulation needs no barrier before them (spec §4).
ACCUMULATING = frozenset({"TMATMUL_ACC", "TGEMV_ACC", "TMATMUL_MX_ACC", "TGEMV_MX_ACC"})
SCALAR_STORES = frozenset({"ScalarStore"})


def lanes(trace: Trace) -> tuple[str, ...]:
    """The in-order queues of the trace: the pipes of one core, or of every core of a cluster."""
    if not trace.cores:
        return PIPES
    return tuple(f"{c}.{p}" for c in trace.cores for p in PIPES)


def _core_lanes(all_lanes: tuple[str, ...], core: str) -> tuple[str, ...]:
    return tuple(q for q in all_lanes if q.startswith(core + ".")) if core else all_lanes


def _where(step: Step) -> str:
    return f"{step.loc.short}" + "".join(f" via {v.short}" for v in reversed(step.via))


def _via_notes(step: Step) -> tuple[Diagnostic, ...]:
    return tuple(Diagnostic("note", "inlined from here", to_location(v)) for v in reversed(step.via))


# ---------------------------------------------------------------------------------- flags


@dataclass
class FlagProblem:
    # "never-set", "lost", "unordered-reuse", "set-at-end", "stuck"; across the cores of a cluster
    # also "overflow" and "left-raised" (a warning: no wait of this kernel hangs on it); for L0C unit
    # flags also "unphased-read" (`_unit_flag_causes`)
    kind: str
    steps: tuple[Step, ...]  # the step reported first, then related ones

    def key(self):
        return (self.kind, self.steps[0].loc, self.steps[0].via)

    def diagnostic(self) -> Diagnostic:
        s = self.steps[0]
        if s.kind in ("xset", "xwait"):
            return self._cross_diagnostic()
        if is_unit_flag_event(s.event):
            return self._unit_flag_diagnostic()
        flag = f"flag ({s.src} -> {s.dst}, event {s.event})"
        if self.kind == "never-set":
            msg = (f"deadlock: wait_flag(PIPE_{s.src}, PIPE_{s.dst}, {s.event}) is never satisfied: no "
                   f"set_flag of that {flag} is pending or follows, so PIPE_{s.dst} hangs here")
            notes = ()
        elif self.kind == "lost":
            msg = (f"deadlock: set_flag(PIPE_{s.src}, PIPE_{s.dst}, {s.event}) while the {flag} is still set by "
                   f"an earlier set_flag that no wait_flag has consumed: one signal is lost and a later wait hangs")
            notes = (Diagnostic("note", "the earlier set_flag", to_location(self.steps[1].loc)),)
        elif self.kind == "unordered-reuse":
            msg = (f"deadlock: possible lost signal: set_flag(PIPE_{s.src}, PIPE_{s.dst}, {s.event}) is not ordered after "
                   f"the wait_flag that consumes the previous set of this {flag}; when PIPE_{s.dst} is busy, "
                   f"PIPE_{s.src} can set it again while it is still set, one signal is lost and a later wait hangs")
            notes = (Diagnostic("note", "the wait_flag it must follow", to_location(self.steps[1].loc)),
                     Diagnostic("note", "the previous set_flag", to_location(self.steps[2].loc)))
        elif self.kind == "set-at-end":
            msg = f"deadlock: {flag} set here is still set when the kernel ends (no wait_flag consumes it)"
            notes = ()
        else:
            msg = (f"deadlock: wait_flag(PIPE_{s.src}, PIPE_{s.dst}, {s.event}) has no set_flag before it; the "
                   f"next one is queued behind work that depends on this wait, so the pipes wait on each other "
                   f"forever (a missing priming set_flag?)")
            notes = tuple(Diagnostic("note", "the set_flag it waits for", to_location(x.loc)) for x in self.steps[1:])
        return Diagnostic("error", msg, to_location(s.loc), notes + _via_notes(s))


    def _unit_flag_diagnostic(self) -> Diagnostic:
        """The L0C unit-flag handshake (analysis.unit_flags), said in its own terms."""
        s = self.steps[0]
        at = f"L0C byte {region_of(s.event):#x}"
        notes: tuple[Diagnostic, ...] = ()
        if self.kind == "unphased-read":
            store, final = self.steps[1], self.steps[2]
            msg = (f"deadlock: this matmul's unit-flag check waits until the accumulator at {at} is read out, but "
                   f"the {store.name} at {_where(store)} that reads the earlier result has no STPhase::Final: a "
                   f"store clears the unit flag only with that phase, so the flag the final matmul at "
                   f"{_where(final)} set stays set and PIPE_M hangs here (give the store STPhase::Final, or "
                   "drop the phases and order PIPE_M and PIPE_FIX with flags)")
            notes = (Diagnostic("note", f"the {store.name} without STPhase::Final", to_location(store.loc)),
                     Diagnostic("note", "the matmul with AccPhase::Final that set the flag", to_location(final.loc)))
            return Diagnostic("error", msg, to_location(s.loc), notes + _via_notes(s))
        if self.kind in ("never-set", "stuck") and s.dst == "FIX":
            msg = (f"deadlock: this store's unit-flag check waits for a matmul with AccPhase::Final to publish the "
                   f"accumulator at {at}, and none does before it is needed, so PIPE_FIX hangs here")
        elif self.kind in ("never-set", "stuck"):
            msg = (f"deadlock: this matmul's unit-flag check waits until the accumulator at {at} is read out by a "
                   f"store with STPhase::Final, and none reads it, so PIPE_M hangs here")
        elif self.kind == "set-at-end":
            msg = (f"the accumulator at {at} published here (AccPhase::Final) is never read out by a store with "
                   "STPhase::Final: its unit flag is still set when the kernel ends")
            if len(self.steps) > 1:
                store = self.steps[1]
                msg += f" (the {store.name} at {_where(store)} reads it without that phase, which leaves the flag set)"
                notes = (Diagnostic("note", f"the {store.name} without STPhase::Final", to_location(store.loc)),)
        else:
            msg = (f"deadlock: the unit flag of the accumulator at {at} is set again before the earlier result "
                   "was read out")
        return Diagnostic("error", msg, to_location(s.loc), notes + _via_notes(s))

    def _cross_diagnostic(self) -> Diagnostic:
        s = self.steps[0]
        where = f"on {s.core} " if s.core else ""
        ffts = getattr(s.stmt, "ffts", False)  # a2a3: a wait_flag_dev stalls the whole core
        set_name, wait_name = ("ffts_cross_core_sync", "wait_flag_dev") if ffts else ("set_intra_block",
                                                                                      "wait_intra_block")
        if self.kind == "never-set":
            msg = (f"deadlock: {s.name} {where}is never satisfied: no {set_name} of the other core raises "
                   f"that semaphore for it, so {'the core' if ffts else f'PIPE_{s.pipe} of {s.core}'} hangs here")
            notes = ()
        elif self.kind == "left-raised":
            msg = (f"{s.name} {where}raises a semaphore no {wait_name} of the other core takes: it is still "
                   "raised when the kernel ends (nothing in this kernel waits on it; the next kernel on this "
                   "cluster starts with it raised)")
            return Diagnostic("warning", msg, to_location(s.loc), _via_notes(s))
        elif self.kind == "overflow":
            msg = (f"deadlock: {s.name} {where}can raise its semaphore a {CROSS_CORE_SEMAPHORE_LIMIT + 1}th time "
                   f"before the other core has taken the earlier signals: the counter holds "
                   f"{CROSS_CORE_SEMAPHORE_LIMIT}, so a signal is lost and a later wait hangs")
            notes = (Diagnostic("note", f"the {wait_name} it must follow", to_location(self.steps[1].loc)),)
        else:
            msg = (f"deadlock: {s.name} {where}waits for a signal the other core raises only after work that "
                   "depends on this wait: the cores wait on each other forever")
            notes = tuple(Diagnostic("note", f"the {set_name} it waits for", to_location(x.loc))
                          for x in self.steps[1:])
        return Diagnostic("error", msg, to_location(s.loc), notes + _via_notes(s))


def semaphore(step: Step) -> tuple[str, int]:
    """The (receiving core, semaphore id there) a cross-core set raises or a wait takes.

    On the cube core ids 0..15 name the first vector core's semaphores and 16..31 the second's; a
    vector core names its semaphores, and the cube core's semaphores for it, with 0..15. SYNCALL's
    meeting of the cluster's cores (channel "syncall") counts its signals apart, named the same way."""
    sem = step.event
    channel = getattr(step.stmt, "channel", "intra_block")
    channel = "" if channel == "intra_block" else f"{channel}:"
    if step.core == "cube":
        return (f"{channel}cube", sem) if step.kind == "xwait" else (f"{channel}vec{sem // 16}", sem % 16)
    if sem >= 16:
        raise located(f"semaphore id {sem} is outside 0..15: a vector core names its cluster's semaphores "
                      "0..15 (ids 16..31 are the cube core's names for the second vector core)", step.stmt)
    if step.kind == "xwait":
        return f"{channel}{step.core}", sem
    return f"{channel}cube", sem + 16 * int(step.core.removeprefix("vec") or 0)


def _match_cross(trace: Trace, matches: dict[int, int], problems: list[FlagProblem]) -> dict[int, int]:
    """Pair the n-th wait of each cluster semaphore with its n-th set (a counting semaphore: the
    n-th wait to pass has seen n sets raised; one pipe per side keeps both in program order).
    Returns, for every set that needs it, the wait it must follow (the counter's capacity)."""
    sets: dict[tuple, list[Step]] = {}
    waits: dict[tuple, list[Step]] = {}
    for step in trace.steps:
        if step.kind == "xset":
            sets.setdefault(semaphore(step), []).append(step)
        elif step.kind == "xwait":
            waits.setdefault(semaphore(step), []).append(step)
    after: dict[int, int] = {}
    for key in sorted(set(sets) | set(waits)):
        ss, ws = sets.get(key, []), waits.get(key, [])
        for side in (ss, ws):
            lanes_used = {x.lane for x in side}
            if len(lanes_used) > 1:
                raise located(f"semaphore {key[1]} of {key[0]} is raised or taken on several pipes "
                              f"({', '.join(sorted(lanes_used))}): the order of its signals is not fixed, and "
                              "ptorewrite does not model that", side[-1].stmt)
        for w, st in zip(ws, ss):
            matches[w.index] = st.index
        problems.extend(FlagProblem("never-set", (w,)) for w in ws[len(ss):])
        problems.extend(FlagProblem("left-raised", (st,)) for st in ss[len(ws):])
        for j in range(CROSS_CORE_SEMAPHORE_LIMIT, min(len(ss), len(ws) + CROSS_CORE_SEMAPHORE_LIMIT)):
            after[ss[j].index] = ws[j - CROSS_CORE_SEMAPHORE_LIMIT].index
    return after


def match_flags(trace: Trace) -> tuple[dict[int, int], list[FlagProblem]]:
    """Pair every wait with the set that satisfies it (issue-order one-bit model, see module doc)."""
    pending_set: dict[tuple, Step] = {}
    pending_waits: dict[tuple, deque] = {}
    matches: dict[int, int] = {}
    problems: list[FlagProblem] = []
    for step in trace.steps:
        if step.kind == "set":
            waits = pending_waits.get(step.flag)
            if waits:
                matches[waits.popleft().index] = step.index
            elif step.flag in pending_set:
                problems.append(FlagProblem("lost", (step, pending_set[step.flag])))
            else:
                pending_set[step.flag] = step
        elif step.kind == "wait":
            s = pending_set.pop(step.flag, None)
            if s is not None:
                matches[step.index] = s.index
            else:
                pending_waits.setdefault(step.flag, deque()).append(step)
    for s in pending_set.values():
        problems.append(FlagProblem("set-at-end", (s,)))
    for waits in pending_waits.values():
        problems.extend(FlagProblem("never-set", (w,)) for w in waits)
    if trace.cores:
        _match_cross(trace, matches, problems)
    return matches, problems


def _unphased_reads(steps: list[Step], published: Step, until: int) -> list[Step]:
    """The stores of `published`'s core issued after it (and before step `until`) that read the
    accumulator it published without STPhase::Final: they read the result but leave its unit flag set."""
    final = next((x for x in reversed(steps[:published.index]) if x.kind == "op" and x.core == published.core
                  and x.pipe == "M"), None)
    if final is None:
        return []
    written = [a.footprint for a in final.accesses if a.write and a.footprint.space.endswith("L0C")]
    out = []
    for x in steps[published.index + 1:until]:
        if x.kind != "op" or x.core != published.core or x.pipe != "FIX":
            continue
        if any(t.replace(" ", "").removeprefix("pto::") in STORE_PHASES for t in x.stmt.template_args or ()):
            continue
        if any(not a.write and a.footprint.space == w.space and a.footprint.lo < w.hi and w.lo < a.footprint.hi
               for a in x.accesses for w in written):
            out.append(x)
    return out


def _unit_flag_causes(steps: list[Step], flags: list[FlagProblem]) -> list[FlagProblem]:
    """L0C unit-flag problems said by their cause. A phased matmul whose check never passes
    because a store read the previous result out without STPhase::Final becomes "unphased-read",
    with that store and the final matmul that set the flag; the hardware stops there, so the same
    flag's later lost signal and its set still pending at the end are consequences, not reported
    again. A result left published at the end names such a store too."""
    hung: dict[tuple[str, int], int] = {}  # (core, event) -> the hanging wait's index
    out = []
    for p in flags:
        w = p.steps[0]
        if p.kind in ("never-set", "stuck") and w.kind == "wait" and is_unit_flag_event(w.event) and w.dst == "M":
            published = next((x for x in reversed(steps[:w.index]) if x.kind == "set" and x.core == w.core
                              and x.src == "M" and x.event == w.event), None)
            stores = _unphased_reads(steps, published, w.index) if published is not None else []
            if stores:
                hung[(w.core, w.event)] = w.index
                p = FlagProblem("unphased-read", (w, stores[0], published))
        out.append(p)
    kept = []
    for p in out:
        s = p.steps[0]
        hang = hung.get((s.core, s.event)) if is_unit_flag_event(s.event) and s.kind == "set" else None
        if hang is not None and (p.kind == "set-at-end" or (p.kind == "lost" and s.index > hang)):
            continue
        if p.kind == "set-at-end" and is_unit_flag_event(s.event) and len(p.steps) == 1:
            stores = _unphased_reads(steps, s, len(steps))
            if stores:
                p = FlagProblem("set-at-end", (s, stores[0]))
        kept.append(p)
    return kept


# ---------------------------------------------------------------------------------- order


def _blocks_scalar(step: Step) -> bool:
    """The scalar unit waits for this step before issuing the next. Not for its own stores into a
    buffer (`ub[0] = v`): like any other cross-pipe access they need a flag from PIPE_S (spec §2)."""
    return step.pipe in ("S", "ALL") and not (step.kind == "op" and step.stmt.op in SCALAR_STORES)


def queue_order(trace: Trace, matches: dict[int, int], serial: bool = False) -> tuple[list[int], list[int]]:
    """Steps in an order that respects every pipe's queue, the matched flags and scalar stalls.

    Returns (order, stuck): stuck lists the steps that can never run (a cycle of waits, or waits
    with no set). `serial` adds "every op after every earlier op" (the fully serialized model).
    """
    steps = trace.steps
    all_lanes = lanes(trace)
    queues: dict[str, list[int]] = {p: [] for p in all_lanes}
    blocker: list[int | None] = []  # the last scalar-stalling step its core issued before each step
    last_block: dict[str, int] = {}
    prev_op: list[int | None] = []
    last_op: dict[str, int] = {}
    for s in steps:
        blocker.append(last_block.get(s.core))
        prev_op.append(last_op.get(s.core))
        if s.pipe == "ALL":
            for q in _core_lanes(all_lanes, s.core):
                queues[q].append(s.index)
        else:
            queues[s.lane].append(s.index)
        if _blocks_scalar(s):
            last_block[s.core] = s.index
        if s.kind == "op":
            last_op[s.core] = s.index
    heads = {p: 0 for p in queues}
    done = [False] * len(steps)
    order: list[int] = []

    def ready(i: int) -> bool:
        s = steps[i]
        b = blocker[i]
        if b is not None and not done[b]:
            return False
        if s.kind in ("wait", "xwait"):
            m = matches.get(i)
            if m is None or not done[m]:
                return False
        if serial and s.kind == "op" and prev_op[i] is not None and not done[prev_op[i]]:
            return False
        if s.pipe == "ALL":  # at the head of every queue of its core
            return all(heads[p] < len(queues[p]) and queues[p][heads[p]] == i
                       for p in _core_lanes(all_lanes, s.core))
        return True

    progress = True
    while progress:
        progress = False
        for p, q in queues.items():
            while heads[p] < len(q):
                i = q[heads[p]]
                if done[i] or not ready(i):
                    break
                done[i] = True
                order.append(i)
                if steps[i].pipe == "ALL":
                    for p2, q2 in queues.items():
                        if heads[p2] < len(q2) and q2[heads[p2]] == i:
                            heads[p2] += 1
                else:
                    heads[p] += 1
                progress = True
    stuck = [q[heads[p]] for p, q in queues.items() if heads[p] < len(q)]
    return order, sorted(set(stuck))


# ---------------------------------------------------------------------------------- races


@dataclass
class Race:
    first: Step  # the earlier-issued step
    second: Step
    first_access: Access
    second_access: Access
    kind: str  # "raw", "war", "waw"
    space: str
    lo: int
    hi: int
    count: int = 1

    @property
    def across(self) -> bool:
        """The two accesses are on different cores of a cluster: no program order relates them."""
        return self.first.core != self.second.core

    @property
    def missing(self) -> str:
        a, b = self.first.lane, self.second.lane
        if self.across:
            return f"needs a cross-core flag between {a} and {b} (in the direction the kernel means)"
        if a == b:
            return f"needs pipe_barrier(PIPE_{self.first.pipe})" + (f" on {self.first.core}" if self.first.core else "")
        return f"needs {a} -> {b}"

    def key(self):
        # The same lines racing within a core and across two cores (the vector cores run one
        # program) are two findings; the same pair on either vector core is one.
        return (self.across, self.first.loc, self.first.via, self.second.loc, self.second.via)

    def diagnostic(self) -> Diagnostic:
        verb = {True: "writes", False: "reads"}
        a, b = self.first, self.second
        space = self.space.replace("GM:", "GM argument ")
        if self.across:
            # Two cores have no common program order: the pair can run either way round, so a
            # write/read pair is not RAW rather than WAR. Reported at the reader (what it reads
            # depends on the order), the writer in the note.
            kind = "WAW" if self.kind == "waw" else "RAW or WAR"
            msg = (f"data race ({kind}, across cores) on {space} bytes [{self.lo:#x}, {self.hi:#x}): "
                   f"{b.name} [{b.lane}] {verb[self.second_access.write]} {self.second_access.what}, and "
                   f"{a.name} [{a.lane}] at {_where(a)} {verb[self.first_access.write]} {self.first_access.what}, "
                   f"in either order; {self.missing}")
            if self.count > 1:
                msg += f" ({self.count} occurrences)"
            notes = (Diagnostic("note", f"the {a.name} it races with", to_location(a.loc)),) + _via_notes(a)
            return Diagnostic("error", msg, to_location(b.loc), _via_notes(b) + notes)
        msg = (f"data race ({self.kind.upper()}) on {space} bytes [{self.lo:#x}, {self.hi:#x}): "
               f"{b.name} [{b.lane}] {verb[self.second_access.write]} {self.second_access.what} while "
               f"{a.name} [{a.lane}] at {_where(a)} {verb[self.first_access.write]} {self.first_access.what}, "
               f"and nothing orders them; {self.missing}")
        if self.count > 1:
            msg += f" ({self.count} occurrences)"
        notes = (Diagnostic("note", f"the {a.name} it races with", to_location(a.loc)),) + _via_notes(a)
        return Diagnostic("error", msg, to_location(b.loc), _via_notes(b) + notes)


@dataclass(eq=False, slots=True)
class _Live:
    step: Step
    access: Access
    pipe: int
    epoch: int
    seq: int  # position among every access recorded (reports keep the order of a single list)


class _Space:
    """The accesses of one buffer or GM argument that a later access may still race with.

    Reads and writes are kept apart (a read is only compared with writes), and an access every
    pipe still to run is ordered after is dropped (it can never race again), so the lists stay
    as short as the accesses in flight and the check is linear in the trace."""

    __slots__ = ("prune_at", "reads", "writes")

    def __init__(self) -> None:
        self.reads: list[_Live] = []
        self.writes: list[_Live] = []
        self.prune_at = 64


def _kind(first_write: bool, second_write: bool) -> str:
    if first_write and second_write:
        return "waw"
    return "raw" if first_write else "war"


@dataclass
class CheckResult:
    races: list[Race]
    flags: list[FlagProblem]
    matches: dict[int, int]
    order: list[int]
    stuck: list[int]

    warnings: list[FlagProblem] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.races and not self.flags

    def diagnostics(self) -> list[Diagnostic]:
        return [p.diagnostic() for p in self.flags] + [r.diagnostic() for r in self.races] + \
            [p.diagnostic() for p in self.warnings]


def check(trace: Trace) -> CheckResult:
    arch: ArchProfile = trace.arch
    steps = trace.steps
    matches, flags = match_flags(trace)
    order, stuck = queue_order(trace, matches)
    unmatched = {p.steps[0].index for p in flags if p.kind == "never-set"}
    # A cycle of waits needs a wait whose set is issued after it; waits stuck only behind such a
    # wait (or behind a never-set one) are consequences and not reported.
    # Across cores issue order says nothing: a stuck cross-core wait is a root of a cycle unless a
    # wait that nothing ever satisfies already explains why the cores stopped.
    roots = [i for i in stuck if i not in unmatched and
             ((steps[i].kind == "wait" and matches[i] > i) or (steps[i].kind == "xwait" and not unmatched))]
    flags.extend(FlagProblem("stuck", (steps[i], steps[matches[i]])) for i in roots)
    seen_flags = set()
    flags = [p for p in flags if not (p.key() in seen_flags or seen_flags.add(p.key()))]
    flags = _unit_flag_causes(steps, flags)
    flags.sort(key=lambda p: p.steps[0].index)

    all_lanes = lanes(trace)
    index = {q: k for k, q in enumerate(all_lanes)}
    n = len(all_lanes)
    zero = [0] * n
    front = {p: list(zero) for p in all_lanes}
    count = [0] * n
    step_vc: dict[int, list[int]] = {}  # sets not yet waited for: their clock; scalar stallers: completion
    blocker: list[int | None] = []
    last_block: dict[str, int] = {}
    for s in steps:
        blocker.append(last_block.get(s.core))
        if _blocks_scalar(s):
            last_block[s.core] = s.index
    same_pipe = {k: arch.same_pipe_barrier[q.rsplit(".", 1)[-1]] for q, k in index.items()
                 if q.rsplit(".", 1)[-1] in arch.same_pipe_barrier}
    reuse_after = _previous_waits(steps, matches, flags)
    reuse_after.update(_match_cross(trace, {}, []) if trace.cores else {})
    wait_epoch: dict[int, tuple[int, int]] = {}  # wait -> (pipe, epoch): a set after it on its pipe covers it
    reuse: list[FlagProblem] = []
    live: dict[str, _Space] = {}
    races: dict[tuple, Race] = {}
    # Position in `order` of each pipe's last op: a pipe with none left adds no access to check.
    last_op = [-1] * n
    for pos, i in enumerate(order):
        if steps[i].kind == "op":
            last_op[index[steps[i].lane]] = pos
    position = 0
    seq = [0]

    def retired() -> list[int]:
        """Per pipe: ops (in pipe order) that every op still to run is ordered after."""
        active = [front[q] for q in all_lanes if last_op[index[q]] >= position]
        if not active:
            return [1 << 62] * n
        return [min(f[k] for f in active) for k in range(n)]

    def join(a: list[int], b: list[int]) -> list[int]:
        return [max(x, y) for x, y in zip(a, b)]

    for position, i in enumerate(order):
        s = steps[i]
        b = blocker[i]
        if s.pipe == "ALL":
            mine = _core_lanes(all_lanes, s.core)
            vc = list(zero)
            for q in mine:
                vc = join(vc, front[q])
            for q in mine:
                vc[index[q]] = max(vc[index[q]], count[index[q]])
            if b is not None:
                vc = join(vc, step_vc[b])
            for q in mine:
                front[q] = list(vc)
            step_vc[i] = vc
            continue
        lane = s.lane
        p = index[lane]
        base = front[lane]
        if b is not None:
            base = join(base, step_vc[b])
        if s.kind == "op":
            epoch = count[p]
            count[p] += 1
            front[lane] = base
            if s.barrier_inside:
                # The implementation's own pipe_barrier: its early accesses, then the barrier (every
                # op of this pipe so far is done), then the rest as one more op of the pipe.
                _check_accesses(s, p, epoch, base, live, races, same_pipe, seq, retired,
                                [a for a in s.accesses if a.early])
                base = list(base)
                base[p] = count[p]
                front[lane] = base
                late = [a for a in s.accesses if not a.early]
                if late:
                    epoch = count[p]
                    count[p] += 1
                    _check_accesses(s, p, epoch, base, live, races, same_pipe, seq, retired, late)
            else:
                _check_accesses(s, p, epoch, base, live, races, same_pipe, seq, retired)
            if s.pipe == "S":
                done = list(base)
                done[p] = count[p]
                step_vc[i] = done
        elif s.kind in ("set", "xset"):
            vc = list(base)
            vc[p] = count[p]
            step_vc[i] = vc
            front[lane] = base
            w = reuse_after.get(i)
            # A wait on PIPE_S stalls the scalar unit until it is satisfied: a set it issues later
            # follows it.
            if w is not None and not (w in wait_epoch and vc[wait_epoch[w][0]] > wait_epoch[w][1]) and \
                    not (w < i and steps[w].core == s.core and _blocks_scalar(steps[w])):
                if s.kind == "set":
                    reuse.append(FlagProblem("unordered-reuse", (s, steps[w], steps[matches[w]])))
                else:
                    reuse.append(FlagProblem("overflow", (s, steps[w])))
        elif s.kind in ("wait", "xwait"):
            m = matches[i]
            # A set is matched by one wait: its clock is not needed again (unless it stalls the scalar unit).
            vc = join(base, step_vc[m] if _blocks_scalar(steps[m]) else step_vc.pop(m))
            wait_epoch[i] = (p, count[p])  # a wait is an event of its pipe: later sets there follow it
            count[p] += 1
            front[lane] = vc
            if _blocks_scalar(s):
                # What the core issues after it follows the wait itself too (an a2a3 wait_flag_dev
                # stalls the core: a set on another pipe after it covers it).
                done = list(vc)
                done[p] = count[p]
                step_vc[i] = done
        else:  # barrier
            vc = list(base)
            vc[p] = count[p]
            front[lane] = vc
    ordered = sorted(races.values(), key=lambda r: (r.second.index, r.first.index))
    flags += [p for p in reuse if not (p.key() in seen_flags or seen_flags.add(p.key()))]
    flags.sort(key=lambda f: f.steps[0].index)
    warnings = [f for f in flags if f.kind == "left-raised"]
    flags = [f for f in flags if f.kind != "left-raised"]
    return CheckResult(ordered, flags, matches, order, stuck, warnings)


def _previous_waits(steps: list[Step], matches: dict[int, int], flags: list[FlagProblem]) -> dict[int, int]:
    """For each set of a flag whose previous set was consumed by a wait issued before it: that wait.
    The set must happen after it, or it can fire while the flag still holds the previous signal.
    Sets already reported as lost (issued while the previous one was pending) are left out."""
    consumer = {s: w for w, s in matches.items()}
    lost = {f.steps[0].index for f in flags if f.kind == "lost"}
    last_set: dict[tuple, int] = {}
    out: dict[int, int] = {}
    for st in steps:
        if st.kind != "set":
            continue
        prev = last_set.get(st.flag)
        last_set[st.flag] = st.index
        w = consumer.get(prev) if prev is not None else None
        if w is not None and w < st.index and st.index not in lost:
            out[st.index] = w
    return out


def _check_accesses(s: Step, p: int, epoch: int, vc: list[int], live: dict[str, _Space],
                    races: dict[tuple, Race], same_pipe: dict[int, frozenset], seq: list[int], retired,
                    accesses=None) -> None:
    accesses = s.accesses if accesses is None else accesses
    for acc in accesses:
        fp = acc.footprint
        space = live.get(fp.space)
        if space is None:
            space = live[fp.space] = _Space()
        hits = _unordered(s, acc, p, vc, space.writes, same_pipe)
        if acc.write:
            hits += _unordered(s, acc, p, vc, space.reads, same_pipe)
            if len(hits) > 1:
                hits.sort(key=lambda h: h[0].seq)
        for x, kind, ov in hits:
            if x.step.index < s.index:
                r = Race(x.step, s, x.access, acc, kind, fp.space, ov[0], ov[1])
            else:  # processed out of issue order: report the pair in program order
                r = Race(s, x.step, acc, x.access, _kind(acc.write, x.access.write), fp.space, ov[0], ov[1])
            if r.across and r.kind == "war":
                # Across cores issue order means nothing: the writer first, the reader second.
                r = Race(r.second, r.first, r.second_access, r.first_access, "raw", fp.space, ov[0], ov[1])
            old = races.get(r.key())
            if old is None:
                races[r.key()] = r
            else:
                old.count += 1
    for acc in accesses:
        fp = acc.footprint
        space = live[fp.space]
        if acc.write:
            # Accesses this write covers and follows are subsumed: a later access racing with
            # them overlaps this write and is ordered no better, so it still gets reported.
            for entries in (space.reads, space.writes):
                entries[:] = [x for x in entries
                              if x.step is s or not (vc[x.pipe] > x.epoch and fp.covers(x.access.footprint))]
        seq[0] += 1
        (space.writes if acc.write else space.reads).append(_Live(s, acc, p, epoch, seq[0]))
        if len(space.reads) + len(space.writes) > space.prune_at:
            done = retired()
            space.reads = [x for x in space.reads if x.epoch >= done[x.pipe]]
            space.writes = [x for x in space.writes if x.epoch >= done[x.pipe]]
            space.prune_at = 64 + 2 * (len(space.reads) + len(space.writes))


def _unordered(s: Step, acc: Access, p: int, vc: list[int], entries: list[_Live],
               same_pipe: dict[int, frozenset]) -> list[tuple[_Live, str, tuple[int, int]]]:
    """The recorded accesses that overlap `acc` and that nothing orders before it."""
    fp = acc.footprint
    lo, hi = fp.lo, fp.hi
    out = []
    for x in entries:
        xf = x.access.footprint
        if xf.hi <= lo or hi <= xf.lo or x.step is s or vc[x.pipe] > x.epoch:
            continue
        ov = xf.overlap(fp)
        if ov is None:
            continue
        kind = _kind(x.access.write, acc.write)
        if x.pipe == p:
            if kind not in same_pipe.get(p, ()):
                continue  # this pipe keeps such pairs in program order
            # (a cluster's trace names the cube core's L0C "cube:L0C")
            if x.step.name in MATMULS and s.name in ACCUMULATING and fp.space.rsplit(":", 1)[-1] == "L0C":
                continue  # in-order accumulation into one L0C tile; a fresh product over it needs a barrier
        out.append((x, kind, ov))
    return out
