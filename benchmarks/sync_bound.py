"""Where a cluster kernel's waiting goes: lower bounds that take its synchronization away, and the
waits on its critical path.

    python benchmarks/sync_bound.py [simulate's flags] KERNEL.cpp

Two bounds, both on ptorewrite's timing model and the kernel's own trace (its statements in their
order, each pipe running its queue in order, the cross-core FIFO waits kept):

* ideal sync: every same-core set_flag / wait_flag / pipe_barrier(PIPE_ALL) and L0C unit flag is
  dropped, and each instruction instead starts once every earlier instruction of another pipe of
  its core that touches the same bytes (read after write, write after read or write) is done: a
  perfect placement of flags with unlimited event ids, for the kernel's memory plan as it is;
* true dependences only: the same with only read-after-write ordered, as if every tile had a fresh
  buffer each time it is written (no memory plan at all).

A kernel's time above its ideal-sync bound is its synchronization's cost; the ideal-sync bound above
the true-dependence one is its memory plan's (buffers reused or not multi-buffered); the rest is its
program order and its work. The waits are the same-core waits on the critical path that held their
pipe after it was otherwise free, summed per source line and flag. Those figures are each wait's
own idle time of its pipe, not shares of the kernel's time: waits on different pipes and cores hold
them at once, so they overlap, do not add up, and their sum can exceed the timed cycles over the
ideal-sync bound. Run by hand; not part of the test suite (benchmarks/fa_a2a3_vs_hand.py uses it).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field

from ptorewrite.emulator import timing
from ptorewrite.emulator.pipes import queue_order
from ptorewrite.emulator.schedule import Schedule, cost_query


@dataclass
class Bounds:
    total: int
    ideal: int  # every same-core sync replaced by the data dependences it orders
    true_deps: int  # read-after-write only
    # (wait, held cycles, times); the held cycles of different waits overlap: not additive.
    critical_waits: list[tuple[str, int, int]] = field(default_factory=list)


def timed(argv: list[str]):
    """(trace, schedule) of `ptorewrite simulate ARGV` for one kernel (a cluster or one core)."""
    from ptorewrite import cli
    from ptorewrite.analysis import execution
    from ptorewrite.arch import profile
    from ptorewrite.diagnostics import Reporter
    from ptorewrite.emulator import cluster, commands
    from ptorewrite.emulator.pipes import match_flags
    from ptorewrite.emulator.schedule import simulate

    args = cli.build_parser().parse_args(["simulate", *argv])
    reporter = Reporter()
    kernels = commands._load(args.kernel, args, reporter, cli.frontend_options)
    units = commands._verify_units(kernels, args, reporter, "timed")
    if len(units) != 1:
        raise SystemExit(f"{args.kernel}: {len(units)} kernels; choose one with --entry")
    unit = units[0]
    arch = profile(args.arch)
    if isinstance(unit, dict):
        trace = cluster.cluster_trace(unit, arch, commands.runtime_values(args), args.max_instances)
    else:
        trace = execution.unroll(unit, arch, commands.runtime_values(args), max_instances=args.max_instances)
    matches, _ = match_flags(trace)
    return trace, simulate(trace, matches=matches)


def _where(step) -> str:
    return f"{step.loc.line}:{step.loc.col}" + "".join(f" via {v.line}" for v in reversed(step.via))


def _kept(step) -> bool:
    """Steps the bounds keep: instructions, cross-core flags and single-pipe barriers."""
    return step.kind in ("op", "xset", "xwait") or (step.kind == "barrier" and step.pipe != "ALL")


def bound(trace, sched: Schedule, true_deps_only: bool = False, kept_waits=None) -> int:
    """The kernel's cycles with its same-core syncs replaced by the data dependences of its
    instructions (see the module doc). `kept_waits(step)`: the same-core waits to keep instead, with
    their sets and the full barriers (benchmarks/sync_ablation.py drops one wait site at a time)."""
    steps = trace.steps
    per = timing.SCALAR_ISSUE_CYCLES
    order, _ = queue_order(trace, sched.matches)

    def kept(s) -> bool:
        return _kept(s) or (kept_waits is not None and s.kind in ("set", "wait", "barrier"))

    blocker: dict[int, int | None] = {}
    last_block: dict[str, int] = {}
    for s in steps:
        blocker[s.index] = last_block.get(s.core)
        if kept(s) and s.pipe in ("S", "ALL"):
            last_block[s.core] = s.index
    free: dict[str, int] = {}
    ends: dict[int, int] = {}
    live: dict[str, list] = {}  # space -> [(footprint, write, done, lane)]
    for i in order:
        s = steps[i]
        if not kept(s):
            continue
        t = s.seq * per
        b = blocker[i]
        if b is not None and b in ends:
            t = max(t, ends[b] + (s.seq - steps[b].seq) * per)
        if s.pipe == "ALL":  # a full barrier (kept_waits only): after every pipe of its core
            mine = [lane for lane in free if lane.rsplit(".", 1)[0] == s.core]
            ends[i] = max([t, *(free[lane] for lane in mine)])
            for lane in mine:
                free[lane] = ends[i]
            continue
        t = max(t, free.get(s.lane, 0))
        if s.kind == "xwait" or (s.kind == "wait" and kept_waits is not None and kept_waits(s)):
            t = max(t, ends[sched.matches[i]])
        if s.kind != "op":
            ends[i] = free[s.lane] = t
            continue
        for a in s.accesses:
            for g, w, done, lane in live.get(a.footprint.space, ()):
                ordered = (w and not a.write) if true_deps_only else (w or a.write)
                if ordered and lane != s.lane and done > t and g.overlap(a.footprint) is not None:
                    t = done
        c = sched.cycles.get(i) or timing.instruction_cycles(cost_query(s), trace.arch.name)
        end = t + c
        release = timing.STORE_SOURCE_RELEASE.get(s.pipe)
        freed = t + max(1, int(c * release)) if release is not None and s.name == "TSTORE" else end
        free[s.lane] = freed
        for a in s.accesses:
            # A store's source is read by the time its pipe frees: what overwrites it waits that long.
            done = freed if (freed != end and not a.write) else end
            live.setdefault(a.footprint.space, []).append((a.footprint, a.write, done, s.lane))
        ends[i] = end
    return max(ends.values(), default=0)


def critical_waits(trace, sched: Schedule) -> list[tuple[str, int, int]]:
    """Same-core waits on the critical path that held their pipe past the moment it was free and
    issued: (the wait and its flag, cycles held, times), most first. The cycles are the idle time of
    each wait's own pipe; waits on other pipes may hold theirs in the same cycles, so the figures
    overlap and do not add up."""
    steps = trace.steps
    on_path = {i for i, _ in sched.critical_path()}
    held: Counter = Counter()
    times: Counter = Counter()
    by_lane: dict[str, list[int]] = {}
    for i in sorted(sched.times):
        by_lane.setdefault(steps[i].lane, []).append(i)
    for idx in by_lane.values():
        ready = 0
        for i in idx:
            s, t = steps[i], sched.times[i]
            if i in on_path and s.kind == "wait" and t.cause == "flag" and t.start > ready:
                key = f"{s.core + ' ' if s.core else ''}{s.name} @{_where(s)}"
                held[key] += t.start - ready
                times[key] += 1
            ready = max(ready, t.end)
    return [(k, v, times[k]) for k, v in held.most_common()]


def measure(trace, sched: Schedule) -> Bounds:
    return Bounds(sched.total, bound(trace, sched), bound(trace, sched, True), critical_waits(trace, sched))


def main() -> int:
    trace, sched = timed(sys.argv[1:])
    b = measure(trace, sched)
    print(f"timed {b.total:,} cycles; ideal-sync bound {b.ideal:,}; true-dependence bound {b.true_deps:,}")
    if b.critical_waits:
        print("waits on the critical path, cycles each held its pipe (overlapping: they do not add up):")
    for what, cycles, n in b.critical_waits[:12]:
        print(f"  {cycles:>8,} cycles x{n:<3} {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
