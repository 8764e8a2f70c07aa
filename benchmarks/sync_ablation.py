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

from ptorewrite.emulator.schedule import Schedule


def time_without(trace, sched: Schedule, dropped: set[str]) -> int:
    """The kernel's cycles with the same-core waits at `dropped` sites replaced by the data
    dependences of their pipes, every other flag, barrier and cross-core wait kept."""
    return bound(trace, sched, kept_waits=lambda s: _where(s) not in dropped)


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
