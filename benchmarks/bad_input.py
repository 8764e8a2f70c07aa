"""Time the command line on every bad input of tests/_bad_inputs.py, as markdown.

    python benchmarks/bad_input.py > benchmarks/bad_input.md

Each case runs `python -m ptorewrite ...` in a fresh process (interpreter start and imports
included), best of `--repeat` runs (default 3). The bar: every case exits with status 2, prints
one located (where the input has a location) message and no traceback, writes nothing, and
takes under 2 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _bad_inputs import cases, snapshot


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = []
    worst = worst_cpu = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases(Path(tmp)):
            best = cpu_best = None
            for _ in range(args.repeat):
                before = snapshot(case.watch)
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                p = subprocess.run([sys.executable, "-m", "ptorewrite", *case.argv], check=False, capture_output=True,
                                   text=True, cwd=ROOT, timeout=60)
                dt = time.perf_counter() - t0
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
                written = snapshot(case.watch) != before
                best = dt if best is None else min(best, dt)
                cpu_best = cpu if cpu_best is None else min(cpu_best, cpu)
            worst, worst_cpu = max(worst, best), max(worst_cpu, cpu_best)
            first = p.stderr.splitlines()[0] if p.stderr else ""
            first = first.replace(tmp + "/", "")
            ok = p.returncode == 2 and "Traceback" not in p.stderr and not written and not p.stdout
            rows.append(f"| {case.name} | {p.returncode} | {'no' if not written else 'YES'} | {best:.2f} | {cpu_best:.2f} | "
                        f"{'ok' if ok else 'FAIL'} | `{first[:140]}` |")
    print("# Bad input: status, message, nothing written, time\n")
    print("Regenerate: `python benchmarks/bad_input.py > benchmarks/bad_input.md`\n")
    print(f"Each case in a fresh `python -m ptorewrite` process, best of {args.repeat} runs: wall time and CPU "
          f"time (user + system) of the process. Python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} when the run ended.\n")
    print("| case | exit | wrote | wall s | CPU s | verdict | first line of the message |")
    print("|---|---:|---|---:|---:|---|---|")
    print("\n".join(rows))
    print(f"\nSlowest case: {worst:.2f} s wall, {worst_cpu:.2f} s CPU (bar: under 2 s).")


if __name__ == "__main__":
    main()
