"""Happens-before over an issued stream of instructions and syncs (spec §1, §4).

Each pipe runs its queue in order, but in-order issue does not mean ordered completion:
an instruction is known to have finished before another starts only through
  - set_flag(P, Q, id) -> wait_flag(P, Q, id): every P op issued before the set finishes
    before any Q op issued after the wait starts;
  - pipe_barrier(P): every earlier P op finishes before any later P op starts
    (PIPE_ALL: every earlier op of every pipe);
  - same-pipe program order, for the hazards the architecture orders by itself.
Knowledge is tracked with vector clocks: for each op, how many ops of each pipe are
known to be complete when it starts.

The flag protocol is checked in issue order: a set on a flag that is still set (the
signal is lost), a wait with no set before it, and flags left set at the end.
"""

from __future__ import annotations

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
    return pipe == "M" and same_tile and later_op in ("TMATMUL_ACC", "TGEMV_ACC") and \
        earlier_op in ("TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS")
