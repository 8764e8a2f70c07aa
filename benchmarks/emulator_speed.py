"""Wall time of the emulator on the largest sample: gemm_double at 1536 x 256 x 1024 (720 instructions).

    python benchmarks/emulator_speed.py > benchmarks/emulator_speed.md

Each stage is timed separately (best of 3, CPU time of this process: the steadier figure on a
shared machine), then the CLI end to end (wall and CPU time of each command's process).
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ptorewrite.analysis import execution
from ptorewrite.arch import profile
from ptorewrite.emulator import data, pipes, schedule, timeline
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

KERNEL = ROOT / "samples" / "gemm_double" / "manual.cpp"
DEFINES = ["GEMM_M=1536", "GEMM_K=256", "GEMM_N=1024"]


def best(fn, repeat=3):
    times, result = [], None
    for _ in range(repeat):
        t = time.process_time()
        result = fn()
        times.append(time.process_time() - t)
    return min(times), result


def main() -> None:
    arch = profile("a2a3")
    t_parse, kernel = best(lambda: load_kernel(KERNEL, FrontendOptions(auto_mode=False, defines=DEFINES)))
    t_unroll, trace = best(lambda: execution.unroll(kernel, arch, {}))
    gm = data.random_gm(trace.gm_extent, trace.gm_dtype, 0)
    t_data, _ = best(lambda: data.run(trace, {k: v.copy() for k, v in gm.items()}))
    t_check, result = best(lambda: pipes.check(trace))
    t_sched, sched = best(lambda: schedule.simulate(trace))
    t_svg, _ = best(lambda: timeline.render_svg(sched))
    ops = sum(1 for s in trace.steps if s.kind == "op")
    cli = {}
    for cmd in (["check"], ["simulate"], ["verify", str(ROOT / "samples" / "gemm_double" / "auto.cpp")]):
        argv = [sys.executable, "-m", "ptorewrite.cli", *cmd, str(KERNEL), *(f"-D{d}" for d in DEFINES)]
        t = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        assert p.returncode == 0, cmd
        cli[cmd[0]] = (time.perf_counter() - t, usage.ru_utime + usage.ru_stime)
    rows = [
        ("parse (libclang front end)", t_parse),
        ("unroll into the trace (control flow, placement, footprints)", t_unroll),
        ("data: execute every instruction on numpy buffers", t_data),
        ("check: flags, happens-before, races", t_check),
        ("schedule: timing and critical path", t_sched),
        ("timeline SVG", t_svg),
    ]
    lines = [
        "# Emulator speed",
        "",
        "Regenerate: `python benchmarks/emulator_speed.py > benchmarks/emulator_speed.md`",
        "",
        (f"Kernel: `samples/gemm_double/manual.cpp -D{' -D'.join(DEFINES)}`: {ops} instructions, "
         f"{len(trace.steps) - ops} syncs, {sched.total:,} modelled cycles; race check clean: {result.clean}. "
         f"Machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}."),
        "",
        "| stage | CPU seconds (best of 3) |",
        "|---|---:|",
    ]
    lines += [f"| {name} | {t:.3f} |" for name, t in rows]
    lines += [
        "",
        "End to end through the CLI (one process each, including interpreter start and imports):",
        "",
        "| command | wall seconds | CPU seconds |",
        "|---|---:|---:|",
    ]
    lines += [f"| `ptorewrite {name}` | {wall:.2f} | {cpu:.2f} |" for name, (wall, cpu) in cli.items()]
    lines += [
        "",
        "`check` and `simulate` never touch data (the trace carries operand places and byte footprints);",
        "only `verify` runs the numpy semantics, once for the AUTO kernel and once for the manual one.",
        f"Load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
