"""Time and peak memory of `check`, `simulate` and `verify` against trip count, in one run.

    python benchmarks/emulator_scaling.py > benchmarks/emulator_scaling.md

Kernels: samples/gemm_double (hand-written twin as MANUAL, sizes set with -D) from one
128 x 64 x 256 tile up to one core's share of a 6144^3 GEMM on 24 cores (1536 x 6144 x 1024),
and samples/vec_add from its 16 tiles per core up to 4,096 (a copy with the tile count edited,
since it is a constexpr). Every command runs in its own process; the table gives its wall time,
its CPU time (user + system: the steadier figure on a shared machine) and its peak resident
memory, all from the operating system's accounting of that process. Last, a kernel whose loop
runs 10^9 times shows how fast each command refuses a run over the instance limit.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GEMM = ROOT / "samples" / "gemm_double"
VEC_ADD = ROOT / "samples" / "vec_add"
BILLION = ROOT / "tests" / "kernels" / "limits"

GEMM_SIZES = [(128, 64, 256), (256, 512, 256), (512, 1024, 512), (1536, 1536, 1024), (1536, 3072, 1024),
              (1536, 6144, 1024)]
VEC_ADD_TILES = [16, 64, 256, 1024, 4096]


def measure(argv: list[str]) -> tuple[float, float, float, str, int]:
    """(wall s, CPU s, peak MiB, stdout, exit status) of one command in its own process."""
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "ptorewrite", *argv], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out, p.returncode


def row(name: str, size: str, auto: Path, manual: Path, defines: list[str]) -> str:
    cells = []
    counts = ""
    for cmd in (["check", manual], ["simulate", manual], ["verify", auto, manual]):
        wall, cpu, mib, out, status = measure([*map(str, cmd), *defines])
        if status != 0:
            raise SystemExit(f"{' '.join(map(str, cmd))} {' '.join(defines)}: exit {status}\n{out}")
        if cmd[0] == "check":
            m = re.search(r"\((\d+) instructions and (\d+) syncs issued\)", out)
            counts = f"{int(m.group(1)):,} | {int(m.group(2)):,}"
        cells.append(f"{wall:.2f} / {cpu:.2f} | {mib:.0f}")
    return f"| {name} | {size} | {counts} | " + " | ".join(cells) + " |"


def main() -> None:
    load_before = os.getloadavg()[0]
    lines = [
        "# Emulator scaling",
        "",
        "Regenerate: `python benchmarks/emulator_scaling.py > benchmarks/emulator_scaling.md`",
        "",
        "Each command in its own process (interpreter start, imports and parsing included). Times are",
        "`wall / CPU` seconds; memory is the peak resident set in MiB. `verify` runs the AUTO kernel",
        "and the manual twin on the same random data and race-checks the twin; `check` and `simulate`",
        "run the twin only. Instructions and syncs are the manual twin's issued instances.",
        "",
        "| kernel | size | instructions | syncs | check s | MiB | simulate s | MiB | verify s | MiB |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m, k, n in GEMM_SIZES:
        defines = [f"-DGEMM_M={m}", f"-DGEMM_K={k}", f"-DGEMM_N={n}"]
        lines.append(row("gemm_double", f"{m} x {k} x {n}", GEMM / "auto.cpp", GEMM / "manual.cpp", defines))
    with tempfile.TemporaryDirectory() as tmp:
        for tiles in VEC_ADD_TILES:
            files = []
            for which in ("auto", "manual"):
                text = (VEC_ADD / f"{which}.cpp").read_text()
                text, hits = re.subn(r"VEC_ADD_TILES_PER_CORE = \d+;", f"VEC_ADD_TILES_PER_CORE = {tiles};", text)
                assert hits == 1, which
                path = Path(tmp) / f"vec_add_{tiles}_{which}.cpp"
                path.write_text(text)
                files.append(path)
            lines.append(row("vec_add", f"{tiles:,} tiles", files[0], files[1], ["-I", str(VEC_ADD)]))
    refusals = []
    for cmd in (["check", BILLION / "billion_manual.cpp"], ["simulate", BILLION / "billion_auto.cpp"],
                ["verify", BILLION / "billion_auto.cpp", BILLION / "billion_manual.cpp"]):
        wall, cpu, mib, _, status = measure(list(map(str, cmd)))
        assert status == 2, cmd
        refusals.append(f"| `{cmd[0]}` | {wall:.2f} / {cpu:.2f} | {mib:.0f} |")
    lines += [
        "",
        "A loop of 10^9 iterations (`tests/kernels/limits/billion_*.cpp`) is refused before anything runs,",
        "with the loops, their trip counts and smaller sizes (exit status 2):",
        "",
        "| command | s | MiB |",
        "|---|---:|---:|",
        *refusals,
        "",
        (f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python {platform.python_version()}; "
         f"load average {load_before:.1f} before the run and {os.getloadavg()[0]:.1f} after it (a shared "
         "machine: wall times above the CPU times are time spent waiting for a core)."),
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
