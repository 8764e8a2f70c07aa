"""Cost of the commands against problem size: time and peak memory of whole processes.

    python benchmarks/scaling.py > benchmarks/scaling.md          # all columns
    python benchmarks/scaling.py --only auto2manual                 # some columns

Every cell runs `ptorewrite <command> ...` in a fresh process (imports, parsing and all) and
reports the median wall time of `--repeat` runs and the peak resident memory. Cases run side by
side, interleaved, so that load on the machine affects them alike. A column is one entry of
COMMANDS: a name and a function from a case to the command's arguments (None: not measured for
that case), so a column is added by adding an entry.

The processes run with their bytecode cached, as an installed package has it (`pip install`
compiles it): the cache goes to a temporary directory (PYTHONPYCACHEPREFIX), filled once before
the first measurement, even where the environment turns caching off (PYTHONDONTWRITEBYTECODE).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from gen_vector_kernel import generate

LONG_LOOP = """// One loop of TRIPS tiles, double buffered.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void long_loop(__gm__ float *out, __gm__ float *in)
{
    TileT x[2];
    for (int64_t i = 0; i < TRIPS; ++i) {
        GmT g(in + i * 512);
        GmT o(out + i * 512);
        TLOAD(x[i % 2], g);
        TADDS(x[i % 2], x[i % 2], 1.0f);
        TSTORE(o, x[i % 2]);
    }
}
"""


STRAIGHT = """// N in-place scalar adds on one tile, without a loop.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void straight(__gm__ float *out, __gm__ float *in)
{{
    GmT g(in);
    GmT o(out);
    TileT x;
    TLOAD(x, g);
{adds}    TSTORE(o, x);
}}
"""


@dataclass
class Case:
    kernel: str  # sample name or generated kernel
    size: str  # as shown in the table
    path: Path
    defines: list[str] = field(default_factory=list)
    instances: int | None = None  # executed instruction instances of one run (where known)


def _gemm(m: int, k: int, n: int) -> Case:
    steps = (m // 128) * (n // 256) * (k // 64)
    return Case("gemm_double", f"{m}x{k}x{n}", ROOT / "samples" / "gemm_double" / "auto.cpp",
                [f"-DGEMM_M={m}", f"-DGEMM_K={k}", f"-DGEMM_N={n}"],
                steps * 3 + (m // 128) * (n // 256) * (2 * max(1, k // 256) + 1))


def _vec_add(tiles: int) -> Case:
    return Case("vec_add", f"{tiles} tiles", ROOT / "samples" / "vec_add" / "auto.cpp",
                [f"-DVEC_ADD_TILES_PER_CORE={tiles}"], 4 * tiles)


def cases(tmp: Path, quick: bool) -> list[Case]:
    out = [_gemm(256, 512, 256), _gemm(1536, 256, 1024), _gemm(1536, 6144, 1024)]
    if not quick:
        out.insert(2, _gemm(1536, 2048, 1024))
        out.append(_gemm(3072, 6144, 1024))
    out += [_vec_add(t) for t in ((16, 4096) if quick else (16, 256, 4096))]
    loop = tmp / "long_loop.cpp"
    loop.write_text(LONG_LOOP)
    out += [Case("long_loop", "1e9 trips", loop, ["-DTRIPS=1000000000LL"], 3 * 10**9)]
    big = tmp / "long_chains.cpp"
    big.write_text(generate(1000, 3, 64))
    out += [Case("long_chains", f"{generate(1000, 3, 64).count(chr(10))} lines, 3 loops of 64", big)]
    for n in (200, 2000) if quick else (200, 400, 2000):
        path = tmp / f"straight_{n}.cpp"
        path.write_text(STRAIGHT.format(adds="    TADDS(x, x, 1.0f);\n" * n))
        out += [Case("straight_line", f"{n} TADDS", path, [], n + 2)]
    return out


# Columns: name -> arguments of one run for a case (None: not measured).
# `verify KERNEL` rewrites the kernel and runs both versions: the whole check of one rewrite. A
# 1e9-trip loop is over the emulator's instance limit (it is refused in a second: see
# emulator_scaling.md).
COMMANDS: dict[str, Callable[[Case, Path], list[str] | None]] = {
    "auto2manual": lambda c, tmp: ["auto2manual", str(c.path), *c.defines, "-o", str(tmp / "out.cpp")],
    "verify": lambda c, tmp: None if c.kernel == "long_loop" else ["verify", str(c.path), *c.defines],
}
ENV: dict[str, str] = {}


def _cached_bytecode(tmp: Path) -> None:
    ENV.clear()
    ENV.update({k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
               PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "ptorewrite")], env=ENV, check=True,
                   stdout=subprocess.DEVNULL)
    measure(["--help"])  # the libraries' own bytecode, where their install left none


def measure(argv: list[str]) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak resident MiB, exit status) of one `ptorewrite` process."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "ptorewrite", *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=ENV or None)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", action="append", choices=sorted(COMMANDS), help="columns to measure")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="fewer sizes")
    args = p.parse_args(argv)
    columns = args.only or list(COMMANDS)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        _cached_bytecode(tmp)
        todo = cases(tmp, args.quick)
        help_runs = [measure(["--help"]) for _ in range(max(3, args.repeat))]
        times: dict[tuple[int, str], list[float]] = {}
        cpu: dict[tuple[int, str], list[float]] = {}
        peaks: dict[tuple[int, str], float] = {}
        fails: set[tuple[int, str]] = set()
        for _ in range(args.repeat):
            for i, c in enumerate(todo):
                for col in columns:
                    cmd = COMMANDS[col](c, tmp)
                    if cmd is None:
                        continue
                    wall, used, peak, status = measure(cmd)
                    times.setdefault((i, col), []).append(wall)
                    cpu.setdefault((i, col), []).append(used)
                    peaks[(i, col)] = max(peaks.get((i, col), 0.0), peak)
                    if status != 0:
                        fails.add((i, col))
        print(_report(todo, columns, times, cpu, peaks, fails, args.repeat))
        print(f"\nStart-up: `ptorewrite --help` takes {statistics.median(r[0] for r in help_runs):.2f} s "
              f"({statistics.median(r[1] for r in help_runs):.2f} s CPU, {max(r[2] for r in help_runs):.0f} MiB).")
    return 0


def _report(todo, columns, times, cpu, peaks, fails, repeat) -> str:
    lines = [
        "`python benchmarks/scaling.py > benchmarks/scaling.md`",
        "",
        "Whole `ptorewrite` processes (imports and parsing included): median wall time and CPU time",
        f"(user + system) of {repeat} runs, and peak resident memory; cases interleaved in one run, so",
        "load on the machine affects them alike; bytecode cached, as installed. `verify KERNEL`",
        "rewrites the kernel and runs both versions in the emulator. Instances: instructions one run",
        (f"of the kernel executes. Machine: {os.cpu_count()} cores, load average "
        f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} at the end (wall times above the CPU times "
        "are waits for a core)."),
        "",
        "| kernel | size | instances | " + " | ".join(f"{c} s | {c} CPU s | {c} MiB" for c in columns) + " |",
        "|---|---|---|" + "---|---|---|" * len(columns),
    ]
    for i, c in enumerate(todo):
        cells = []
        for col in columns:
            if (i, col) not in times:
                cells += ["-", "-", "-"]
                continue
            t = statistics.median(times[(i, col)])
            mark = " (failed)" if (i, col) in fails else ""
            cells += [f"{t:.2f}{mark}", f"{statistics.median(cpu[(i, col)]):.2f}", f"{peaks[(i, col)]:.0f}"]
        inst = f"{c.instances:,}" if c.instances else "-"
        lines.append(f"| {c.kernel} | {c.size} | {inst} | " + " | ".join(cells) + " |")
    if "auto2manual" in columns:
        small = next((i for i, c in enumerate(todo) if c.size == "1536x256x1024"), None)
        large = next((i for i, c in enumerate(todo) if c.size == "1536x6144x1024"), None)
        if small is not None and large is not None:
            a, b = (statistics.median(times[(x, "auto2manual")]) for x in (small, large))
            ca, cb = (statistics.median(cpu[(x, "auto2manual")]) for x in (small, large))
            lines += ["", (f"auto2manual on gemm_double: 1536x6144x1024 takes {b / a:.2f}x the wall time and "
                          f"{cb / ca:.2f}x the CPU time of 1536x256x1024.")]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
