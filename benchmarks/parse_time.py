"""Time the front end (`load_kernel`: libclang parse + lowering) on every sample, as markdown.

    python benchmarks/parse_time.py > benchmarks/parse_time.md

Each kernel is loaded once to warm up, then timed `--repeat` times (default 5); the table shows
the best and the median wall time. The acceptance bar is the largest sample (gemm_double) well
under one second.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing the package

from ptorewrite.analysis import ir
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

SAMPLES = ("vec_add", "softmax", "rmsnorm", "gemm_single", "gemm_double", "reshape_subview")
# (label, sample, -D defines): gemm_double also at the calibration sizes.
CASES = [(name, name, ()) for name in SAMPLES] + [
    ("gemm_double 1536x256x1024", "gemm_double", ("GEMM_M=1536", "GEMM_K=256", "GEMM_N=1024")),
    ("gemm_double 256x4096x256", "gemm_double", ("GEMM_M=256", "GEMM_K=4096", "GEMM_N=256")),
]


def time_load(path: Path, defines: tuple[str, ...], repeat: int) -> tuple[list[float], ir.Kernel]:
    opts = FrontendOptions(defines=list(defines))
    kernel = load_kernel(path, opts)  # warm-up: first libclang use, imports
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        load_kernel(path, opts)
        times.append(time.perf_counter() - t0)
    return times, kernel


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per kernel (default 5)")
    args = ap.parse_args()

    print("# Front-end parse time")
    print()
    print("Regenerate: `python benchmarks/parse_time.py > benchmarks/parse_time.md`")
    print()
    print(f"`load_kernel` wall time (libclang parse of the file and the bundled headers, then lowering to "
          f"the IR), best and median of {args.repeat} runs after one warm-up. "
          f"Python {platform.python_version()}, {platform.machine()}.")
    print()
    print("| sample | mode | source lines | instructions (static) | best ms | median ms |")
    print("|---|---|---:|---:|---:|---:|")
    largest = (0, "", 0.0)
    for label, name, defines in CASES:
        for mode in ("auto", "manual"):
            path = ROOT / "samples" / name / f"{mode}.cpp"
            times, kernel = time_load(path, defines, args.repeat)
            lines = path.read_text().count("\n")
            n_instr = sum(1 for _ in kernel.instructions())
            print(f"| {label} | {mode} | {lines} | {n_instr} | {min(times) * 1e3:.1f} | "
                  f"{statistics.median(times) * 1e3:.1f} |")
            if mode == "auto" and lines > largest[0]:
                largest = (lines, label, min(times))
    print()
    print(f"Largest AUTO sample: {largest[1]} ({largest[0]} lines), best {largest[2] * 1e3:.0f} ms (bar: well under "
          f"1000 ms).")


if __name__ == "__main__":
    main()
