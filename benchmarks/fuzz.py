"""Fuzz the rewriter with random valid AUTO kernels and tabulate what happened, as markdown.

    python benchmarks/fuzz.py                      # 10,000 kernels -> benchmarks/fuzz.md
    python benchmarks/fuzz.py --count 400 --out -  # a short run to stdout

Kernels come from `ptorewrite.fuzz.kernels` (Hypothesis), one Hypothesis run per seed of a fixed
list (`--chunk` kernels each), so a run is reproducible. Each kernel is rewritten, verified by
the emulator at three (n, mode) sets and checked, in this process (`ptorewrite.fuzz.run`). The
first `--probe` kernels that rewrite also get the minimality probe (each inserted sync deleted in
turn; some check must notice). A run is timed in CPU seconds (the machine may be busy); one over
10 s, or stopped after `--limit` seconds on the wall clock, is a finding. Every kernel that is not "ok", is slow, or has an unnoticed sync is
written to `--keep` (default: a directory under the system's temporary one) for shrinking.
"""

from __future__ import annotations

import argparse
import collections
import os
import platform
import signal
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

from ptorewrite.fuzz.kernels import FuzzKernel, kernels
from ptorewrite.fuzz.run import Outcome, probe_kernel, run_kernel

ROOT = Path(__file__).resolve().parents[1]
SLOW = 10.0  # seconds: a run over this is a finding
PROBE_LIMIT = 600.0  # seconds for the probe of one kernel (a parse and emulator runs per inserted sync)


class _Stopped(Exception):
    pass


def _alarm(signum, frame):
    raise _Stopped


def _limited(seconds: float, fn, *args):
    """fn(*args), or _Stopped after `seconds`."""
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run_chunk(chunk_seed: int, count: int, probe_left: list[int], limit: float, record) -> None:
    @seed(chunk_seed)
    @settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(kernels())
    def one(kernel: FuzzKernel) -> None:
        probe = None
        with tempfile.TemporaryDirectory(prefix="ptorewrite-fuzz-") as tmp:
            start, cpu = time.perf_counter(), time.process_time()
            try:
                out = _limited(limit, run_kernel, kernel, Path(tmp))
            except _Stopped:
                out = Outcome("ok", f"stopped after {limit:g} s", time.perf_counter() - start,
                              time.process_time() - cpu)
            if out.status == "ok" and probe_left[0] > 0:
                probe_left[0] -= 1
                try:
                    probe = _limited(PROBE_LIMIT, probe_kernel, kernel, Path(tmp))
                except _Stopped:
                    probe = (0, [f"probe stopped after {PROBE_LIMIT:g} s"])
        record(chunk_seed, kernel, out, probe)

    one()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--chunk", type=int, default=200, help="kernels per seed")
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--probe", type=int, default=100, help="kernels that get the minimality probe")
    ap.add_argument("--limit", type=float, default=120.0, help="wall seconds before a kernel is stopped")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "fuzz.md"), help="markdown file, or - for stdout")
    ap.add_argument("--keep", default=None, help="directory for the kernels worth a look")
    args = ap.parse_args()
    keep = Path(args.keep or tempfile.mkdtemp(prefix="ptorewrite-fuzz-keep-"))
    keep.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGALRM, _alarm)

    counts: collections.Counter[str] = collections.Counter()
    families: collections.Counter[str] = collections.Counter()
    refusals: collections.Counter[str] = collections.Counter()
    findings: list[str] = []
    slow: list[float] = []  # CPU seconds of the runs over SLOW
    slow_wall: list[float] = []  # wall seconds of the runs over SLOW on the clock (a busy machine)
    cpu_total = [0.0]
    probed = syncs_probed = 0
    unnoticed: list[str] = []
    total = [0]
    started = time.perf_counter()

    def record(chunk_seed: int, kernel: FuzzKernel, out: Outcome, probe: tuple[int, list[str]] | None) -> None:
        nonlocal probed, syncs_probed
        total[0] += 1
        counts[out.status] += 1
        families[kernel.family] += 1
        name = f"s{chunk_seed}_k{total[0]}"
        unnoticed_here = probe[1] if probe else []
        worth = out.status != "ok" or out.cpu_seconds > SLOW or out.detail or unnoticed_here
        if out.status == "refused":
            refusals[out.detail.split(": error: ", 1)[-1][:160]] += 1
        stopped = out.detail.startswith("stopped")
        if out.cpu_seconds > SLOW or stopped:
            slow.append(out.cpu_seconds)
        if out.seconds > SLOW:
            slow_wall.append(out.seconds)
        cpu_total[0] += out.cpu_seconds
        if probe:
            probed += 1
            syncs_probed += probe[0]
            unnoticed.extend(f"{name}: {u}" for u in unnoticed_here)
        if worth:
            header = (f"// {out.status} {out.cpu_seconds:.1f} s CPU, {out.seconds:.1f} s wall: {out.detail}\n"
                      f"// values: {kernel.value_sets()}\n")
            header += "".join(f"// unnoticed: {u}\n" for u in unnoticed_here)
            (keep / f"{name}.cpp").write_text(header + kernel.text)
            if out.status not in ("ok", "refused"):
                findings.append(f"{name} ({out.status}): {out.detail}")
        if total[0] % 500 == 0:
            print(f"{total[0]} kernels, {time.perf_counter() - started:.0f} s: {dict(counts)}", file=sys.stderr,
                  flush=True)

    probe_left = [args.probe]
    chunks = (args.count + args.chunk - 1) // args.chunk
    seeds = list(range(args.first_seed, args.first_seed + chunks))

    def write_table(done: bool) -> None:
        elapsed = time.perf_counter() - started
        n = total[0]
        progress = "" if done else (f" **Partial: the run had done {n:,} of {args.count:,} kernels when this "
                                    "table was written.**")
        lines = [
            "# Fuzzing: random valid AUTO kernels through auto2manual, verify and check",
            "",
            ("Regenerate: `tox -e fuzz` (or `python benchmarks/fuzz.py`); a shorter run: "
            "`python benchmarks/fuzz.py --count 400 --out -`."),
            "",
            (f"{n:,} kernels ({families['vector']:,} vector, {families['cube']:,} cube) from "
            f"`ptorewrite.fuzz.kernels`, Hypothesis seeds {seeds[0]}..{seeds[-1]}, {args.chunk} kernels per seed. "
            "Each is rewritten, verified by the emulator (same outputs as the AUTO kernel, no race, no flag "
            "problem) at three (n, mode) sets, one of them a zero or one trip count, all in one process. "
            f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores shared with other "
            f"work (load average {os.getloadavg()[0]:.1f} when the table was written).{progress}"),
            "",
            "| kernels | ok | crashes | internal errors | verify failures | refusals | runs over 10 s CPU | time |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
            (f"| {n:,} | {counts['ok']:,} | {counts['crash']} | {counts['internal']} | {counts['wrong']} | "
            f"{counts['refused']} ({100 * counts['refused'] / max(n, 1):.2f}%) | {len(slow)} | "
            f"{elapsed / 60:.1f} min wall, {cpu_total[0] / max(n, 1):.2f} s CPU per kernel |"),
            "",
            ("A run is rewrite, parse of the result and verify at the three value sets; its time is CPU time "
            "(on this shared machine the wall clock says more about the other work)."),
            "",
            "## Refusals",
            "",
        ]
        if refusals:
            lines += ["| count | message |", "|---:|---|"]
            lines += [f"| {c} | `{m}` |" for m, c in refusals.most_common()]
        else:
            lines.append("None.")
        lines += ["", "## Crashes, internal errors, verify failures", ""]
        lines += [f"- {f}" for f in findings[:50]] or ["None."]
        lines += ["", "## Runs over 10 s", ""]
        lines += [f"{len(slow)} run(s) over {SLOW:g} s of CPU; the slowest {max(slow):.1f} s." if slow else
                  f"None over {SLOW:g} s of CPU."]
        lines += [f"On the wall clock {len(slow_wall)} run(s) took over {SLOW:g} s"
                  + (f" (the slowest {max(slow_wall):.1f} s)." if slow_wall else ".")]
        lines += [
            "", "## Minimality probe", "",
            (f"{probed} kernels probed ({syncs_probed} inserted syncs, each deleted in turn and the kernel verified "
            "at every n in 0, 1, 2, 3, 4, 7 and mode in 0..2, and the deletions none of those noticed again at "
            f"every n up to 29): {len(unnoticed)} deletion(s) went unnoticed."),
            "",
        ]
        lines += [f"- {u}" for u in unnoticed[:50]]
        text = "\n".join(lines) + "\n"
        if args.out == "-":
            if done:
                sys.stdout.write(text)
        else:
            Path(args.out).write_text(text)

    for k, s in enumerate(seeds):
        run_chunk(s, min(args.chunk, args.count - k * args.chunk), probe_left, args.limit, record)
        write_table(done=k == len(seeds) - 1)  # after every seed: a stopped run leaves its table so far
    print(f"kernels worth a look: {keep}", file=sys.stderr)
    bad = counts["crash"] + counts["internal"] + counts["wrong"] + len(slow)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
