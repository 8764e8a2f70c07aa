"""Happens-before over an issued stream of instructions and syncs (spec §1, §4).

Each pipe runs its queue in order, but in-order issue does not mean ordered completion:
an instruction is known to have finished before another starts only through
  - set_flag(P, Q, id) -> wait_flag(P, Q, id): every P op issued before the set finishes
    before any Q op issued after the wait starts;
  - pipe_barrier(P): every earlier P op finishes before any later P op starts
    (PIPE_ALL: every earlier op of every pipe); so does the barrier an instruction's own
    implementation issues (`execution.mark_barrier_inside`) for the ops before and after it;
  - same-pipe program order, for the hazards the architecture orders by itself.
Knowledge is tracked with vector clocks: for each op, how many ops of each pipe are
known to be complete when it starts.

The flag protocol is checked in issue order: a set on a flag that is still set (the
signal is lost), a wait with no set before it, and flags left set at the end.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

from ptorewrite.arch import PIPES, ArchProfile

_P = {p: i for i, p in enumerate(PIPES)}
NP = len(PIPES)


@dataclass(frozen=True)
class FlagProblem:
    # "lost-signal": set while the flag is still set in issue order;
    # "unordered-reuse": set not known to follow the wait that cleared the previous signal,
    #   so on some timing it lands before that wait and is lost;
    # "wait-without-set": nothing to wait for; "left-set": still set at the end.
    kind: str
    key: tuple[str, str, int]  # (src, dst, event)
    first: object  # origin of the offending set/wait
    second: object | None = None  # the earlier set that is still pending (lost-signal)
    first_item: object | None = None


@dataclass
class HB:
    """Result: per instruction (by its position in the stream) its start knowledge."""

    position: dict[int, int] = field(default_factory=dict)  # id(DynInstr) -> 1-based index on its pipe
    knowledge: dict[int, list[int]] = field(default_factory=dict)  # id(DynInstr) -> vector clock
    flag_problems: list[FlagProblem] = field(default_factory=list)

    def ordered(self, earlier, later) -> bool:
        """`earlier` is known to finish before `later` starts (through syncs)."""
        k = self.knowledge[id(later)]
        return k[_P[earlier.pipe]] >= self.position[id(earlier)]


def happens_before(stream, check_flags: bool = True) -> HB:
    """`stream`: issued items in order, each with a `kind`: "op" (with .pipe), "set"/"wait" (with
    .src, .dst, .event), "barrier" (with .pipe); anything else (markers) is skipped. The origin
    reported for a flag problem is the item's `origin` if it has one, else its `stmt`."""
    out = HB()
    count = [0] * NP  # ops issued per pipe; waits count too, so later sets can be ordered after them
    know = [[0] * NP for _ in range(NP)]  # knowledge each pipe has reached
    pending: dict[tuple[str, str, int], tuple[list[int], object]] = {}
    last_wait: dict[tuple[str, str, int], tuple[int, object]] = {}
    for it in stream:
        kind = it.kind
        if kind == "op":
            p = _P[it.pipe]
            count[p] += 1
            out.position[id(it)] = count[p]
            out.knowledge[id(it)] = know[p][:]
            if getattr(it, "barrier_inside", False):
                # Its implementation's own barrier of its pipe: every earlier op of the pipe
                # finishes before any later one starts. (The op's own accesses on either side of
                # that barrier are left out of the dependences altogether: `deps`.)
                know[p][p] = max(know[p][p], count[p] - 1)
        elif kind == "set":
            p = _P[it.src]
            k = know[p][:]
            k[p] = max(k[p], count[p])
            key = (it.src, it.dst, it.event)
            origin = _origin(it)
            if check_flags:
                if key in pending:
                    out.flag_problems.append(FlagProblem("lost-signal", key, origin, pending[key][1], it))
                elif key in last_wait and k[_P[it.dst]] < last_wait[key][0]:
                    out.flag_problems.append(FlagProblem("unordered-reuse", key, origin, last_wait[key][1], it))
            pending[key] = (k, origin)
        elif kind == "wait":
            q = _P[it.dst]
            key = (it.src, it.dst, it.event)
            got = pending.pop(key, None)
            if got is None:
                if check_flags:
                    out.flag_problems.append(FlagProblem("wait-without-set", key, _origin(it), None, it))
                continue
            kq = know[q]
            for i in range(NP):
                kq[i] = max(kq[i], got[0][i])
            count[q] += 1
            last_wait[key] = (count[q], _origin(it))
        elif kind == "barrier":
            if it.pipe == "ALL":
                merged = [max(know[j][i] for j in range(NP)) for i in range(NP)]
                for i in range(NP):
                    merged[i] = max(merged[i], count[i])
                know = [merged[:] for _ in range(NP)]
            else:
                p = _P[it.pipe]
                know[p][p] = max(know[p][p], count[p])
    if check_flags:
        for key, (_, origin) in sorted(pending.items(), key=lambda kv: kv[0]):
            out.flag_problems.append(FlagProblem("left-set", key, origin))
    return out


def _origin(it):
    return getattr(it, "origin", None) or it.stmt


def same_pipe_ordered(arch: ArchProfile, pipe: str, hazard: str, earlier_op: str, later_op: str,
                      same_tile: bool) -> bool:
    """Program order alone orders this same-pipe hazard on this architecture."""
    if hazard not in arch.same_pipe_barrier.get(pipe, frozenset()):
        return True
    # Accumulating matmuls into one L0C tile rely on in-order accumulation (spec §4).
    return pipe == "M" and same_tile and later_op in ("TMATMUL_ACC", "TGEMV_ACC", "TMATMUL_MX_ACC", "TGEMV_MX_ACC") \
        and earlier_op in ("TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS",
                           "TMATMUL_MX", "TGEMV_MX", "TMATMUL_MX_ACC", "TGEMV_MX_ACC")


# ---------------------------------------------------------------- the planner's happens-before

# Event kinds of `order_events`.
SET, WAIT, BARRIER, ALL_BARRIER, FORK, ALT, EXIT, JOIN = range(8)


class Ordering:
    """Happens-before over a bounded trace (`analysis.bounded`) with a set of synchronization
    events, computed from the events alone.

    Positions replace per-pipe counters: knowledge row q, entry p = t means "every op of pipe p
    at a position below t is known complete by pipe q" (along the path taken). After a join an
    entry may be a `Holes` instead: every op below its bound but a few (see `_merged_row`). Ops do not change
    knowledge, so only syncs and control items are processed; an op's knowledge is its pipe's
    knowledge at the last event before it, looked up in a timeline. A fork saves the state, each
    alternative starts from it, an exit keeps the current state as one more end, and the join
    keeps what holds on every path: the least knowledge, a flag pending only on some paths as
    "maybe pending" (a later wait may hang and a later set may be lost), and the latest possible
    wait of each flag.
    """

    __slots__ = ("all_positions", "all_states", "flag_problems", "positions", "snapshots", "spans")

    def __init__(self):
        self.positions: list[list[int]] = [[] for _ in range(NP)]  # per pipe: where its row changed
        self.snapshots: list[list[tuple]] = [[] for _ in range(NP)]
        self.all_positions: list[int] = []  # where every row may have changed (forks, joins, PIPE_ALL)
        self.all_states: list[list[tuple]] = []
        self.flag_problems: list[FlagProblem] = []
        self.spans: list[tuple[object, int, int]] = []  # (origin, set position, wait position)

    def known(self, pipe: int, pos: int) -> tuple:
        """What `pipe` knows just before position `pos`."""
        ps = self.positions[pipe]
        i = bisect_left(ps, pos) - 1
        j = bisect_left(self.all_positions, pos) - 1
        if j >= 0 and (i < 0 or self.all_positions[j] > ps[i]):
            return self.all_states[j][pipe]
        return self.snapshots[pipe][i] if i >= 0 else _ZERO

    def ordered(self, src_pipe: int, src_pos: int, dst_pipe: int, dst_pos: int) -> bool:
        return _has(self.known(dst_pipe, dst_pos)[src_pipe], src_pos)

    def all_ordered(self, instances) -> bool:
        """Every (src pipe, src position, dst pipe, dst position) is ordered."""
        allp, alls = self.all_positions, self.all_states
        for sp, spos, dp, dpos in instances:
            ps = self.positions[dp]
            i = bisect_left(ps, dpos) - 1
            j = bisect_left(allp, dpos) - 1 if allp else -1
            if j >= 0 and (i < 0 or allp[j] > ps[i]):
                row = alls[j][dp]
            elif i >= 0:
                row = self.snapshots[dp][i]
            else:
                return False
            if not _has(row[sp], spos):
                return False
        return True


_ZERO = (0,) * NP
MAX_HOLES = 32  # ops a knowledge entry may leave out below its bound
MAX_SCAN = 256  # ops a join looks at, per pipe, to find them


class Holes:
    """A knowledge entry that is not a prefix: every op below `upto` is known complete except
    those at `holes`. A join makes one when every path knows an op or never issued it, but some
    path does not know an earlier op: a branch that skipped the producer of the flag it waits on
    knows nothing about that producer, and need not (it never issued it)."""

    __slots__ = ("holes", "upto")

    def __init__(self, upto: int, holes: frozenset[int]):
        self.upto, self.holes = upto, holes

    def __eq__(self, other):
        return isinstance(other, Holes) and self.upto == other.upto and self.holes == other.holes

    def __hash__(self):
        return hash((self.upto, self.holes))

    def __repr__(self):
        return f"Holes({self.upto}, {sorted(self.holes)})"


def _entry(upto: int, holes) -> int | Holes:
    return Holes(upto, frozenset(holes)) if holes else upto


def _has(entry, pos: int) -> bool:
    """The op at `pos` is known complete by this entry."""
    if type(entry) is int:
        return pos < entry
    return pos < entry.upto and pos not in entry.holes


def _first_unknown(entry) -> int:
    return entry if type(entry) is int else min(entry.holes)


def _union(a, b):
    """What is known from either entry (a wait joins the knowledge its set carried)."""
    if type(a) is int and type(b) is int:
        return max(a, b)
    ta, ha = (a, frozenset()) if type(a) is int else (a.upto, a.holes)
    tb, hb = (b, frozenset()) if type(b) is int else (b.upto, b.holes)
    if ta < tb:
        ta, ha, tb, hb = tb, hb, ta, ha
    return _entry(ta, [h for h in ha if h >= tb or h in hb])


def _union_row(a: tuple, b: tuple) -> tuple:
    if all(type(x) is int for x in a) and all(type(x) is int for x in b):
        return tuple(map(max, a, b))
    return tuple(map(_union, a, b))


def order_events(events, check_flags: bool = True, op_positions: list[list[int]] | None = None,
                 forks: bool = True) -> Ordering:
    """`events`: (position, kind, a, b, event id, origin) sorted by position. SET/WAIT: a, b are
    the source and destination pipe indices; BARRIER: a is the pipe; FORK/ALT/EXIT/JOIN: a is the
    fork. Positions of syncs must differ from those of ops (ops sit between them).

    `op_positions` (per pipe, sorted) makes joins precise: what a path knows about a pipe also
    covers that pipe's ops the path never issued (an op in the other branch of an if).

    Flag reuse (a set must follow the wait that consumed the previous signal of its flag) is
    checked exactly: what each pipe knows about waits is a set of wait events (a bitset), and
    at a join a path counts as knowing the waits it never issued; the last wait of a flag is
    the set of waits that can be last on some path. `forks=False`: the events hold no fork."""
    out = Ordering()
    if forks:
        events = _without_empty_forks(events)
    know = [_ZERO] * NP  # rows are tuples, replaced when they change
    kw = [0] * NP  # waits each pipe knows complete (bit = wait number)
    pending: dict[tuple, tuple] = {}  # key -> (knowledge carried, set position, origin, maybe, waits known)
    last_wait: dict[tuple, tuple[int, object]] = {}  # key -> (waits that may be the last, origin)
    frames: list[list] = []  # [entry state, ends [(state, ranges of the path)], fork position, branch start]
    positions, snapshots = out.positions, out.snapshots
    problems = out.flag_problems
    names = PIPES
    waits_on = [0] * NP  # waits of each pipe so far
    wait_positions: list[int] = []

    def on_path(ranges) -> int:
        """Waits so far that lie on a path with these position ranges."""
        m = 0
        for lo, hi in ranges:
            i, j = bisect_left(wait_positions, lo), bisect_left(wait_positions, hi)
            m |= ((1 << j) - 1) ^ ((1 << i) - 1)
        return m

    for pos, kind, a, b, ev, origin in events:
        if kind == SET:
            k = list(know[a])
            k[a] = pos
            known_waits = kw[a] | waits_on[a]
            key = (names[a], names[b], ev)
            if check_flags:
                if key in pending:
                    problems.append(FlagProblem("lost-signal", key, origin, pending[key][2], pos))
                elif key in last_wait and last_wait[key][0] & ~known_waits:
                    problems.append(FlagProblem("unordered-reuse", key, origin, last_wait[key][1], pos))
            pending[key] = (tuple(k), pos, origin, False, known_waits)
        elif kind == WAIT:
            key = (names[a], names[b], ev)
            got = pending.pop(key, None)
            if got is None or got[3]:
                if check_flags:
                    problems.append(FlagProblem("wait-without-set", key, origin))
                if got is None:
                    continue
            row = know[b] = _union_row(know[b], got[0])
            positions[b].append(pos)
            snapshots[b].append(row)
            bit = 1 << len(wait_positions)
            wait_positions.append(pos)
            waits_on[b] |= bit
            kw[b] |= got[4]
            last_wait[key] = (bit, origin)
            out.spans.append((origin, got[1], pos))
        elif kind == BARRIER:
            row = list(know[a])
            row[a] = pos
            know[a] = row = tuple(row)
            positions[a].append(pos)
            snapshots[a].append(row)
            kw[a] |= waits_on[a]
        elif kind == ALL_BARRIER:
            merged = (pos,) * NP  # every op before it, of every pipe (all known entries lie below pos)
            know = [merged] * NP
            kw = [(1 << len(wait_positions)) - 1] * NP
            out.all_positions.append(pos)
            out.all_states.append(know[:])
        elif kind == FORK:
            frames.append([(know, pending, last_wait, kw), [], pos, pos])
            know, pending, last_wait, kw = list(know), dict(pending), dict(last_wait), list(kw)
        elif kind == EXIT:
            frames[-1][1].append(((list(know), dict(pending), dict(last_wait), list(kw)), ((0, pos),)))
        elif kind == ALT:
            frame = frames[-1]
            entry, ends, fork_pos, start = frame
            ends.append(((know, pending, last_wait, kw), ((0, fork_pos), (start, pos))))
            frame[3] = pos
            know, pending, last_wait, kw = list(entry[0]), dict(entry[1]), dict(entry[2]), list(entry[3])
            out.all_positions.append(pos)
            out.all_states.append(know[:])
        else:  # JOIN
            _, ends, fork_pos, start = frames.pop()
            ends.append(((know, pending, last_wait, kw), ((0, fork_pos), (start, pos))))
            everything = (1 << len(wait_positions)) - 1
            off = [everything & ~on_path(ranges) for _, ranges in ends]
            know, pending, last_wait, kw = _merge_paths(ends, pos, op_positions, off)
            out.all_positions.append(pos)
            out.all_states.append(know[:])
    if check_flags:
        for key, got in sorted(pending.items(), key=lambda kv: kv[0]):
            problems.append(FlagProblem("left-set", key, got[2]))
    return out


def _without_empty_forks(events):
    """Forks with no sync between them and their join change nothing: leave them out."""
    out = []
    opened: list[int] = []  # index in `out` of each open fork
    busy: list[bool] = []  # a sync event happened since that fork
    for e in events:
        kind = e[1]
        if kind == FORK:
            opened.append(len(out))
            busy.append(False)
            out.append(e)
        elif kind == JOIN:
            start = opened.pop()
            if busy.pop():
                out.append(e)
                if busy:
                    busy[-1] = True
            else:
                del out[start:]
        elif kind in (ALT, EXIT):
            out.append(e)
        else:
            out.append(e)
            if busy:
                busy[-1] = True
    return out


def _merged_row(rows, paths, limit: int, op_positions) -> tuple:
    """Knowledge every path has. Where paths differ, an op of pipe p counts as known when every
    path knows it or never issued it (an op in the other branch of an if, or past a loop's exit):
    the ops some path issued and does not know, below the join, become the entry's holes (at
    most MAX_HOLES of them, among the first MAX_SCAN ops from the first one some path does not
    know; beyond that the entry stops at the first op not looked at or left out)."""
    first = rows[0]
    if all(r is first or r == first for r in rows[1:]):
        return first
    out = []
    for p, values in enumerate(zip(*rows)):
        v0 = values[0]
        if all(v == v0 for v in values):
            out.append(v0)
            continue
        if op_positions is None:  # no path information: what every row knows
            upto = min(v if type(v) is int else v.upto for v in values)
            holes = {h for v in values if type(v) is not int for h in v.holes if h < upto}
            out.append(_entry(upto, holes))
            continue
        out.append(_merged_entry(values, paths, limit, op_positions[p]))
    return tuple(out)


def _on_path(ranges, pos: int) -> bool:
    return any(lo <= pos < hi for lo, hi in ranges)


def _merged_entry(values, paths, limit: int, ops: list[int]):
    """One entry of `_merged_row` for a pipe whose ops sit at `ops`: the ops some path issued
    and does not know become holes. What a path does not know is a few ranges (from its bound
    on, clipped to the path's position ranges) and its own holes (always positions of this
    pipe's ops), so the scan works on slices of `ops` rather than op by op."""
    i0 = bisect_left(ops, min(_first_unknown(v) for v in values))
    end = bisect_left(ops, limit, i0)
    stop = min(end, i0 + MAX_SCAN)  # the ops looked at: ops[i0:stop]
    if i0 >= stop:
        return limit
    first, after = ops[i0], ops[stop - 1] + 1
    unknown: set[int] = set()  # positions of ops some path issued and does not know
    for v, ranges in zip(values, paths):
        if type(v) is int:
            bound, own_holes = v, ()
        else:
            bound, own_holes = v.upto, v.holes
        for lo, hi in ranges:
            a = bisect_left(ops, max(lo, bound), i0, stop)
            b = bisect_left(ops, hi, a, stop)
            if a < b:
                unknown.update(ops[a:b])
        for h in own_holes:
            if first <= h < after:
                for lo, hi in ranges:
                    if lo <= h < hi:
                        unknown.add(h)
                        break
    found = sorted(unknown)
    if len(found) > MAX_HOLES:
        return _entry(found[MAX_HOLES], found[:MAX_HOLES])
    return _entry(ops[stop] if stop < end else limit, found)


def _merge_paths(ends, limit: int, op_positions, off: list[int]):
    """What holds on every path into a join. `off[i]`: the waits not on path i (known there)."""
    if len(ends) == 1:
        return ends[0][0]
    states = [st for st, _ in ends]
    paths = [ranges for _, ranges in ends]
    knows = [st[0] for st in states]
    if all(k == knows[0] for k in knows[1:]):
        know = list(knows[0])
    else:
        know = [_merged_row([k[q] for k in knows], paths, limit, op_positions) for q in range(NP)]
    kws = [st[3] for st in states]
    kw = []
    for q in range(NP):
        m = -1
        for k, o in zip(kws, off):
            m &= k[q] | o
        kw.append(m)  # not negative: every path's bits are
    pendings = [st[1] for st in states]
    pending = {}
    for key in set().union(*pendings):
        got = [(p[key], r, o) for p, r, o in zip(pendings, paths, off) if key in p]
        if len(got) == len(states) and all(g is got[0][0] for g, _, _ in got):
            pending[key] = got[0][0]
            continue
        carried = _merged_row([g[0] for g, _, _ in got], [r for _, r, _ in got], limit, op_positions)
        maybe = len(got) < len(states) or any(g[3] for g, _, _ in got)
        waits = -1
        for g, _, o in got:
            waits &= g[4] | o
        pending[key] = (carried, min(g[1] for g, _, _ in got), got[0][0][2], maybe, waits)
    last_wait: dict = {}
    for st in states:
        for key, (w, origin) in st[2].items():
            prev = last_wait.get(key)
            last_wait[key] = (w | prev[0], prev[1]) if prev else (w, origin)
    return know, pending, last_wait, kw
