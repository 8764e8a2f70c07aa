"""What each wait site of a kernel costs: for every same-core wait site (source line and call path),
the kernel timed with that site's waits alone replaced by the data dependences they order, every
other flag kept; the sites whose removal gains most come first.

    python benchmarks/sync_ablation.py [simulate's flags] KERNEL.cpp
    python benchmarks/sync_ablation.py --drop "398:13 via 761" --drop "730:17" [...] KERNEL.cpp

`--drop SITE` (repeatable, as the list prints the sites) also times those sites dropped together.
The model is benchmarks/sync_bound.py's ideal-sync bound with the kept flags added to it, so its
totals sit a few hundred cycles off `simulate`'s: compare gains, not totals. It tells where a plan's
waiting is worth removing (pto-isa's a2a3 flash attention: the est_sv_tile wait before the branch
of compute_gu, then the x_expT credit). Run by hand; not part of the test suite.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sync_bound import _where, bound, timed

from ptorewrite.emulator import timing
from ptorewrite.emulator.pipes import queue_order
from ptorewrite.emulator.schedule import Schedule, cost_query


def time_without(trace, sched: Schedule, dropped: set[str]) -> int:
    """The kernel's cycles with the same-core waits at `dropped` sites replaced by the data
    dependences of their pipes (every instruction starts once the earlier instructions of other
    pipes of its core that touch its bytes are done), every other flag, barrier and cross-core wait
    kept as `simulate` keeps it."""
    steps = trace.steps
    per = timing.SCALAR_ISSUE_CYCLES
    order, _ = queue_order(trace, sched.matches)
    blocker: dict[int, int | None] = {}
    last_block: dict[str, int] = {}
    for s in steps:
        blocker[s.index] = last_block.get(s.core)
        if s.pipe in ("S", "ALL"):
            last_block[s.core] = s.index
    free: dict[str, int] = {}
    ends: dict[int, int] = {}
    live: dict[str, list] = {}  # space -> [(footprint, write, done, lane)]
    for i in order:
        s = steps[i]
        t = s.seq * per
        b = blocker[i]
        if b is not None and b in ends:
            t = max(t, ends[b] + (s.seq - steps[b].seq) * per)
        if s.pipe == "ALL":
            mine = [lane for lane in free if lane.rsplit(".", 1)[0] == s.core]
            t = max([t, *(free[lane] for lane in mine)])
            ends[i] = t + timing.PIPE_BARRIER_CYCLES
            for lane in mine:
                free[lane] = ends[i]
            continue
        t = max(t, free.get(s.lane, 0))
        if s.kind in ("wait", "xwait"):
            if s.kind == "xwait" or _where(s) not in dropped:
                t = max(t, ends[sched.matches[i]])
            ends[i] = free[s.lane] = t + (timing.WAIT_FLAG_CYCLES if s.kind == "wait" else 0)
            continue
        if s.kind != "op":
            ends[i] = free[s.lane] = t + (timing.SET_FLAG_CYCLES if s.kind in ("set", "xset")
                                          else timing.PIPE_BARRIER_CYCLES)
            continue
        for a in s.accesses:
            for g, w, done, lane in live.get(a.footprint.space, ()):
                if (w or a.write) and lane != s.lane and done > t and g.overlap(a.footprint) is not None:
                    t = done
        c = sched.cycles.get(i) or timing.instruction_cycles(cost_query(s), trace.arch.name)
        end = t + c
        release = timing.STORE_SOURCE_RELEASE.get(s.pipe)
        freed = t + max(1, int(c * release)) if release is not None and s.name == "TSTORE" else end
        free[s.lane] = freed
        for a in s.accesses:
            done = freed if (freed != end and not a.write) else end
            live.setdefault(a.footprint.space, []).append((a.footprint, a.write, done, s.lane))
        ends[i] = end
    return max(ends.values(), default=0)


def main() -> int:
    argv, together = [], []
    args = iter(sys.argv[1:])
    for a in args:
        if a == "--drop":
            together.append(next(args))
        else:
            argv.append(a)
    trace, sched = timed(argv)
    sites = Counter(_where(s) for s in trace.steps if s.kind == "wait")
    kept = time_without(trace, sched, set())
    print(f"timed {sched.total:,} cycles; this model with every flag kept {kept:,}, with none "
          f"{time_without(trace, sched, set(sites)):,}; ideal-sync bound {bound(trace, sched):,}")
    gains = sorted(((kept - time_without(trace, sched, {w}), w) for w in sites), reverse=True)
    print("cycles gained by dropping one wait site alone (gains overlap: they do not add up):")
    for gain, w in gains[:25]:
        print(f"  {gain:>8,}  x{sites[w]:<4} @{w}")
    if together:
        print(f"dropping {', '.join(together)} together: {kept - time_without(trace, sched, set(together)):,} gained")
    return 0


if __name__ == "__main__":
    sys.exit(main())
