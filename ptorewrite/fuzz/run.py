"""One fuzzed kernel through the tool, in-process: rewrite, verify, check, and the minimality probe.

`run_kernel` classifies what happened:
- "ok": rewritten; at every runtime value set the emulator finds the same outputs as the AUTO
  kernel and its concurrent-pipe check (`ptorewrite check`) finds no race and no flag problem;
- "refused": a located error (PtoError) about the input;
- "internal": the tool's own "internal error: ..." (a PtoError saying it is a bug);
- "crash": any other exception (a traceback for the user);
- "wrong": the rewrite computes something else, races, or loses or hangs on a flag.

The minimality probe (`probe_kernel`, `probe_syncs`) deletes each inserted sync in turn (a set/wait pair with its
prime and drain, or a barrier) and expects the checks to notice at some runtime value: a sync
whose deletion goes unnoticed is either unneeded (the planner's fault) or a case the checker
misses. The probe runs at every (n, mode) with n in {0, 1, 2, 3, 4, 7} and mode in 0..2; a deletion
none of those notices is run again at every n up to 29 before it is reported (see PROBE_WIDE).
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from ptorewrite.arch import profile
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.emulator.verify import verify
from ptorewrite.fuzz.kernels import FuzzKernel
from ptorewrite.parse.frontend import FrontendOptions, load_kernel
from ptorewrite.transform.edits import edit_kernel
from ptorewrite.transform.rewrite import rewrite
from ptorewrite.transform.sync import SyncPlan, sync_insertions
from ptorewrite.transform.tassign import tassign_insertions

# Longest runs first: most deletions show there. Seven trips wrap every ring more than once.
PROBE_VALUES = [{"n": n, "mode": m} for n in (7, 4, 3, 2, 1, 0) for m in (0, 1, 2)]
# A sync can be needed at one trip count only: a store in a loop to `n` whose last iteration
# writes the window a store after the loop writes again (earlier iterations are ordered by the
# loop's own barriers). The fuzzed kernels' GM windows sit at most 21 E from their base and a
# loop-indexed window moves one E per iteration, so the last iteration meets a fixed window at
# some n <= 23; the slot rings (2, 3 and a ping-pong) repeat every 6 iterations. Every n up to
# 23 + 6 therefore shows each case that any n shows. Only the deletions the short list did not
# notice are run there, which keeps the probe cheap.
PROBE_WIDE = [{"n": n, "mode": m} for n in range(30) for m in (0, 1, 2)]


@dataclass
class Outcome:
    status: str
    detail: str = ""  # the refusal, error or wrong result, one line
    seconds: float = 0.0  # wall time of the run (rewrite, parse of the result, verify at each value set)
    cpu_seconds: float = 0.0  # CPU time of the same: on a busy machine the fair measure of speed
    warnings: list[str] = field(default_factory=list)


def _one_line(text: str, limit: int = 300) -> str:
    line = " | ".join(part.strip() for part in text.strip().splitlines() if part.strip())
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _problem(verdict, values: dict) -> str | None:
    """Why a verdict is not clean, or None."""
    if verdict.mismatches:
        return f"at {values}: outputs differ: {verdict.mismatches[0]}"
    diags = verdict.check.diagnostics()
    if diags:
        return f"at {values}: {diags[0].format()}"
    return None


def run_kernel(kernel: FuzzKernel, workdir: Path, arch: str = "a2a3") -> Outcome:
    start, cpu = time.perf_counter(), time.process_time()
    out = _run(kernel, Path(workdir), arch)
    out.seconds, out.cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    return out


def _write(kernel: FuzzKernel, workdir: Path) -> Path:
    src = Path(workdir) / "fuzzed.cpp"
    src.write_text(kernel.text)
    return src


def _run(kernel: FuzzKernel, workdir: Path, arch_name: str) -> Outcome:
    arch = profile(arch_name)
    src = _write(kernel, workdir)
    reporter = Reporter()
    try:
        auto = load_kernel(src, FrontendOptions(arch=arch_name))
        text = rewrite(auto, arch, reporter).text
        manual = _load_manual(workdir / "fuzzed_manual.cpp", text, arch_name)
        warnings = [d.format() for d in reporter.warnings]
        for values in kernel.value_sets():
            problem = _problem(verify(auto, manual, arch, values, seed=values["n"] + 5 * values["mode"]), values)
            if problem:
                return Outcome("wrong", _one_line(problem), warnings=warnings)
        return Outcome("ok", warnings=warnings)
    except PtoError as e:
        message = e.format()
        status = "internal" if "internal error" in message else "refused"
        return Outcome(status, _one_line(message))
    except Exception as e:  # noqa: BLE001 - a crash is what the fuzzer looks for
        frame = traceback.extract_tb(e.__traceback__)[-1]
        return Outcome("crash", _one_line(f"{type(e).__name__}: {e} (at {Path(frame.filename).name}:{frame.lineno})"))


def _load_manual(path: Path, text: bytes, arch_name: str, entry: str | None = None):
    path.write_bytes(text)
    return load_kernel(path, FrontendOptions(auto_mode=False, arch=arch_name, entry=entry))


def probe_kernel(kernel: FuzzKernel, workdir: Path, arch: str = "a2a3") -> tuple[int, list[str]]:
    """The minimality probe of a kernel that rewrites ("ok" from `run_kernel`)."""
    auto = load_kernel(_write(kernel, workdir), FrontendOptions(arch=arch))
    return probe_syncs(auto, profile(arch), workdir)


def probe_syncs(auto, arch, workdir: Path, syncs=None, values=None) -> tuple[int, list[str]]:
    """(number of syncs, the ones whose deletion no check noticed): each of `syncs` (default: the
    planner's) deleted in turn from the rewrite of `auto`, the rest kept, and the result verified
    at every set of `values` (default: the fuzzed kernels' n and mode, the short list first and
    PROBE_WIDE for what it did not notice)."""
    passes = [PROBE_VALUES, [v for v in PROBE_WIDE if v not in PROBE_VALUES]] if values is None else [values]
    result = rewrite(auto, arch, Reporter())  # placement (multi-buffered copies included) and plan
    plan = result.syncs
    base = tassign_insertions(auto, result.plan)
    if edit_kernel(auto, base + sync_insertions(auto, plan, auto.file)) != result.text:
        raise AssertionError("the probe's re-emitted rewrite differs from auto2manual's")
    syncs = plan.syncs if syncs is None else syncs
    unnoticed = []
    for i, deleted in enumerate(syncs):
        reduced = SyncPlan(syncs[:i] + syncs[i + 1:], plan.edges, plan.extra)
        text = edit_kernel(auto, base + sync_insertions(auto, reduced, auto.file))
        manual = _load_manual(Path(workdir) / f"fuzzed_minus{i}.cpp", text, arch.name, auto.name)
        if all(_problem(verify(auto, manual, arch, v, seed=1), v) is None for vs in passes for v in vs):
            where = deleted.wait_at.loc
            unnoticed.append(f"{deleted.kind} {deleted.src}->{deleted.dst} ({deleted.reason}) waited at "
                             f"line {where.line if where else '?'}")
    return len(syncs), unnoticed
