"""The instance limit of `check`, `simulate` and `verify`, and results pinned across emulator
optimisations (outputs on random data, race and flag reports)."""

from __future__ import annotations

import hashlib
import re

import pytest
from _emulator_util import ROOT, SAMPLE_NAMES, SAMPLES, blank_lines, load, sample, sync_lines, trace_of

from ptorewrite.analysis import execution
from ptorewrite.arch import profile
from ptorewrite.cli import main
from ptorewrite.emulator import DEFAULT_MAX_INSTANCES, data, pipes
from ptorewrite.emulator.verify import initial_gm

LIMITS = ROOT / "tests" / "kernels" / "limits"
GEMM = SAMPLES / "gemm_double"
SMALL_GEMM = ("-DGEMM_M=256", "-DGEMM_K=512", "-DGEMM_N=512")  # 2 x 2 output tiles, 2 panels of 4 steps


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def instances(trace: execution.Trace) -> int:
    """Issued steps plus loop iterations (every iteration leaves one (loop, k) pair behind)."""
    iterations = {it[:depth + 1] for s in trace.steps for depth in range(len(s.iters)) for it in [s.iters]}
    return len(trace.steps) + len(iterations)


@pytest.mark.parametrize("command", ["check", "simulate", "verify"])
def test_refused_before_running_with_loops_and_sizes(capsys, command):
    files = [GEMM / "auto.cpp", GEMM / "manual.cpp"] if command == "verify" else [GEMM / "manual.cpp"]
    status, out, err = run(capsys, command, *files, *SMALL_GEMM, "--max-instances", "50")
    assert status == 2 and not out
    first = err.splitlines()[0]
    # Located at the outermost loop of the heaviest nest, which the notes list outermost first.
    assert re.match(rf"{re.escape(str(files[0]))}:\d+:5: error: this run would execute at least [\d,]+ instances "
                    r"\(instructions, syncs and loop iterations\), more than the limit of 50;", first)
    assert "give smaller compile-time sizes with -D (this file's defaults: -DGEMM_M=256 -DGEMM_K=512 " \
           "-DGEMM_N=256), or raise the limit (--max-instances N of check, simulate and verify)" in first
    notes = [ln.split(": note: ")[1] for ln in err.splitlines() if ": note: " in ln]
    panel, step = ("panel.iter", "step.iter") if command == "verify" else ("p", "kk")  # the twin's names
    assert notes[:4] == ["loop over 'm' runs 2 times", "loop over 'n' runs 2 times",
                         f"loop over '{panel}' runs 2 times", f"loop over '{step}' runs 4 times"]
    assert run(capsys, command, *files, *SMALL_GEMM)[0] == 0  # the default limit lets it run


@pytest.mark.parametrize("command", ["check", "simulate", "verify"])
def test_billion_trip_loop_stops_at_once(capsys, command):
    files = {"check": ["billion_manual.cpp"], "simulate": ["billion_auto.cpp"],
             "verify": ["billion_auto.cpp", "billion_manual.cpp"]}[command]
    status, out, err = run(capsys, command, *(LIMITS / f for f in files))
    assert status == 2 and not out
    assert "this run would execute at least " in err and f"more than the limit of {DEFAULT_MAX_INSTANCES:,}" in err
    assert "make the kernel's trip counts smaller, or raise the limit (--max-instances N" in err
    assert re.search(r"billion_\w+\.cpp:\d+:5: note: loop over 'pass' runs 1,000,000,000 times", err)


def test_exact_count_at_the_limit():
    kernel = load(GEMM / "manual.cpp", auto=False, defines=[d[2:] for d in SMALL_GEMM])
    n = instances(trace_of(kernel))
    assert len(execution.unroll(kernel, profile("a2a3"), {"block_idx": 1, "block_num": 2}, max_instances=n).steps)
    # The first/last-panel guards hide some instances from the estimate: the run counts them.
    with pytest.raises(execution.InstanceLimit, match=f"reached the limit of {n - 1:,} executed instances"):
        execution.unroll(kernel, profile("a2a3"), {"block_idx": 1, "block_num": 2}, max_instances=n - 1)


def test_runtime_trip_counts_get_set_values(capsys):
    kernel = LIMITS / "runtime_rounds.cpp"
    limit = ("--max-instances", "20000")
    status, _, err = run(capsys, "simulate", kernel, "--set", "rows=100000", "--set", "rounds=100", *limit)
    assert status == 2
    m = re.search(r"more than the limit of 20,000; try --set rounds=(\d+) --set rows=(\d+), or raise the", err)
    assert m, err
    assert "runtime_rounds.cpp:20:9: note: loop over 'extra' runs a number of times that changes as the kernel " \
           "runs" in err
    rounds, rows = map(int, m.groups())
    assert 0 < rounds < 100 and 0 < rows < 100000
    assert run(capsys, "simulate", kernel, "--set", f"rows={rows}", "--set", f"rounds={rounds}", *limit)[0] == 0
    # A limit raised with --max-instances lets a run through that a lower one stops.
    big = ("--set", "rows=500", "--set", "rounds=10")
    assert run(capsys, "simulate", kernel, *big, *limit)[0] == 2
    assert run(capsys, "simulate", kernel, *big, "--max-instances", "25000")[0] == 0


def test_limit_reached_while_running(capsys):
    """Trip counts that the estimate cannot see (the triangular tail) are counted as they run."""
    status, _, err = run(capsys, "simulate", LIMITS / "runtime_rounds.cpp", "--set", "rows=0", "--set",
                         "rounds=100", "--max-instances", "1000")
    assert status == 2
    assert "runtime_rounds.cpp:12:5: error: this run reached the limit of 1,000 executed instances" in err
    notes = re.findall(r"runtime_rounds\.cpp:(\d+):\d+: note: loop over '(\w+)' runs ([\d,]+) times", err)
    assert notes[0] == ("12", "round", "100") and notes[1][:2] == ("20", "extra")  # the loops running


def test_bad_limit_values(capsys):
    for bad in ("0", "-5", "many"):
        with pytest.raises(SystemExit):
            main(["check", str(SAMPLES / "vec_add" / "manual.cpp"), "--max-instances", bad])
        assert "expected a positive count" in capsys.readouterr().err
    assert run(capsys, "check", SAMPLES / "vec_add" / "manual.cpp", "--max-instances", "1_000_000")[0] == 0


# Outputs of both twins on seed-0 inputs and the report of each manual twin with every third
# wait_flag removed, as computed before the emulator was optimised: (auto outputs, manual outputs,
# races, flag problems, digest of the diagnostics, which name source lines). The flag problems
# include the possible lost signals (a set not ordered after the wait that consumed its flag's
# previous signal) that a removed wait leaves. The GEMM digests are those of the matmul rounded
# from the exact sum (semantics._f32_product), the same on every machine; they were first pinned
# from a float32 BLAS product, whose last bits depend on the CPU.
PINNED = {
    "vec_add": ("b79989e742460188", "b79989e742460188", 6, 6, "8cd5f0be63fe3e62"),
    "softmax": ("0f2a8a75a607162e", "0f2a8a75a607162e", 6, 6, "9243b0aec556121d"),
    "rmsnorm": ("9b95d716617af077", "9b95d716617af077", 3, 4, "fcbdb4e1fa4483c7"),
    "gemm_single": ("8acb7de598d0b757", "8acb7de598d0b757", 12, 6, "058a09a24bb378e2"),
    # One race more than first pinned: the next tile's TMATMUL over the last TMATMUL_ACC, no longer
    # ordered once the FIX -> M wait between them is removed (only accumulation is in order).
    "gemm_double": ("66abf6281dc71335", "66abf6281dc71335", 6, 6, "13e4bb40fff3dce8"),
    "reshape_subview": ("99417a2e915a5bbf", "99417a2e915a5bbf", 5, 6, "30cbad841d7aecaf"),
}


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_results_pinned(name, tmp_path):
    ta, tm = trace_of(sample(name, "auto")), trace_of(sample(name, "manual"))
    gm, _ = initial_gm([ta, tm], 0)
    outs = []
    for t in (ta, tm):
        g = {k: v.copy() for k, v in gm.items()}
        data.run(t, g)
        outs.append(hashlib.sha1(b"".join(g[k].tobytes() for k in sorted(g))).hexdigest()[:16])
    text = (SAMPLES / name / "manual.cpp").read_text()
    waits = [ln for ln, kind, *_ in sync_lines(text) if kind == "wait_flag"]
    path = tmp_path / f"{name}.cpp"
    path.write_text(blank_lines(text, waits[::3]))
    r = pipes.check(trace_of(load(path, auto=False)))
    report = "\n".join(d.format() for d in r.diagnostics()).replace(str(path), "K")
    assert (*outs, len(r.races), len(r.flags), hashlib.sha1(report.encode()).hexdigest()[:16]) == PINNED[name]


def test_verify_passes_its_limit_to_the_rewrite(capsys, tmp_path):
    """Without MANUAL.cpp, verify rewrites first: the rewrite's own runs obey --max-instances."""
    kernel = tmp_path / "forty.cpp"
    kernel.write_text((LIMITS / "billion_auto.cpp").read_text().replace("pass < 1000000000", "pass < 40"))
    status, _, err = run(capsys, "verify", kernel, "--max-instances", "100")
    assert status == 2 and f"{kernel}:11:5: error: this run would execute at least 160 instances" in err
    assert "more than the limit of 100;" in err
    assert run(capsys, "verify", kernel, "--max-instances", "500")[0] == 0
    assert execution.unroll(load(kernel, auto=True), profile("a2a3"), {}).steps  # the default again
