"""Synchronization in ptorewrite's output against each sample's hand-written twin.

    python benchmarks/sync_vs_twin.py --baseline 35a61e7 > benchmarks/sync_vs_twin.md

Static counts are source lines; dynamic counts are what one run of the kernel issues
(set/wait pairs, barriers). Cycles are the emulator's timing model (a2a3, one core,
block_idx 0); "fully serialized" is the twin with every instruction waiting for the last.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from ptorewrite.analysis import execution, ir
from ptorewrite.arch import profile
from ptorewrite.diagnostics import Reporter
from ptorewrite.emulator import schedule
from ptorewrite.parse.frontend import FrontendOptions, load_kernel, load_kernels
from ptorewrite.transform.rewrite import rewrite_kernels

ROOT = Path(__file__).resolve().parents[1]
VALUES = {"block_idx": 0, "block_num": 1}


def counts(kernel: ir.Kernel) -> dict:
    static = {"set": 0, "wait": 0, "barrier": 0, "all": 0}
    for s in ir.walk(kernel.body):
        if isinstance(s, ir.Sync):
            static[s.kind] += 1
            static["all"] += s.kind == "barrier" and s.src == "ALL"
    trace = execution.unroll(kernel, profile(kernel.arch), {v: 1 for v in kernel.runtime_values},
                             require_semantics=False)
    dyn = [s for s in trace.steps if s.kind in ("set", "barrier")]
    return {
        "static": static,
        "pairs": sum(1 for d in dyn if d.kind == "set"),
        "barriers": sum(1 for d in dyn if d.kind == "barrier"),
        "all": sum(1 for d in dyn if d.kind == "barrier" and d.pipe == "ALL"),
        "kernel": kernel,
    }


def cycles(kernel: ir.Kernel, serial: bool = False) -> int:
    trace = execution.unroll(kernel, profile(kernel.arch), VALUES)
    return schedule.simulate(trace, serial=serial).total


SYNC_LINE = re.compile(r"^\s*(set_flag|wait_flag|pipe_barrier)\(", re.MULTILINE)


def sync_lines(text: str) -> int:
    return len(SYNC_LINE.findall(text))


def baseline_sync_lines(commit: str, samples: list[Path]) -> dict[str, int | str]:
    """Sync lines in auto2manual's output of each sample, by the code at `commit` (run from a
    copy of its package that `git archive` writes into a temporary folder: no checkout of the
    commit is needed; its own output, not ours)."""
    out: dict[str, int | str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "ptorewrite"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        env = dict(os.environ, PYTHONPATH=tmp)
        for sample in samples:
            rel = sample.relative_to(ROOT) / "auto.cpp"
            if subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{commit}:{rel.as_posix()}"],
                              check=False, capture_output=True).returncode:
                out[sample.name] = "not a sample yet"
                continue
            p = subprocess.run([sys.executable, "-m", "ptorewrite", "auto2manual", str(sample / "auto.cpp")],
                               check=False, capture_output=True, text=True, cwd=tmp, env=env)
            out[sample.name] = sync_lines(p.stdout) if p.returncode == 0 else f"exit {p.returncode}"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", metavar="COMMIT", help="also count the sync lines of the rewrite at COMMIT")
    args = ap.parse_args(argv)
    rows = []
    # One core's trace per kernel: a cluster sample (code for both core types) runs its cores
    # together, and benchmarks/run.py compares it with its twin in RESULTS.md.
    samples = sorted(p for p in (ROOT / "samples").iterdir() if (p / "auto.cpp").is_file()
                     and not ("__DAV_CUBE__" in (p / "auto.cpp").read_text()
                              and "__DAV_VEC__" in (p / "auto.cpp").read_text()))
    now: dict[str, int] = {}
    for sample in samples:
        autos = load_kernels(sample / "auto.cpp")  # one per instantiation of a kernel template
        text = rewrite_kernels(autos, profile(autos[0].arch), Reporter()).text
        now[sample.name] = sync_lines(text.decode())
        for auto in autos:
            entry = auto.name if auto.instance is not None else None
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "out.cpp"
                out.write_bytes(text)
                opts = FrontendOptions(auto_mode=False, include_dirs=[str(sample)], entry=entry)
                ours = counts(load_kernel(out, opts))
            twin = counts(load_kernel(sample / "manual.cpp", FrontendOptions(auto_mode=False, entry=entry)))
            rows.append((sample.name + (f" {entry}" if entry else ""), ours, twin))
    print(__doc__.split("\n\n", 1)[1].replace("    python", "`python").replace(".md\n", ".md`\n", 1))
    print("| sample | set/wait lines ours / twin | barrier lines ours / twin | set/wait pairs per run "
          "ours / twin | barriers per run ours / twin | PIPE_ALL ours | cycles ours / twin / fully serialized |")
    print("|---|---|---|---|---|---|---|")
    for name, o, t in rows:
        print(f"| {name} | {o['static']['set']}+{o['static']['wait']} / {t['static']['set']}+{t['static']['wait']} "
              f"| {o['static']['barrier']} / {t['static']['barrier']} | {o['pairs']} / {t['pairs']} "
              f"| {o['barriers']} / {t['barriers']} | {o['all']} "
              f"| {cycles(o['kernel']):,} / {cycles(t['kernel']):,} / {cycles(t['kernel'], serial=True):,} |")
    if args.baseline:
        old = baseline_sync_lines(args.baseline, samples)
        print(f"\nSync lines (set_flag, wait_flag, pipe_barrier) in the whole rewritten file, by the code at "
              f"{args.baseline} and now:\n")
        print(f"| sample | at {args.baseline} | now |")
        print("|---|---|---|")
        for sample in samples:
            print(f"| {sample.name} | {old[sample.name]} | {now[sample.name]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
