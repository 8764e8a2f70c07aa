"""`verify` and `simulate` on cluster kernels: the cube core and both vector cores run at once, the
cross-core flags and FIFOs real, in the data run as in the check and the timing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from ptorewrite.arch import profile
from ptorewrite.cli import main
from ptorewrite.diagnostics import Reporter
from ptorewrite.emulator import cluster, pipes
from ptorewrite.inputs import load_kernels
from ptorewrite.parse.invocation import FrontendOptions

CLUSTER = Path(__file__).parent / "kernels" / "cluster"
HANDOFF, HANDOFF_AUTO = CLUSTER / "handoff.cpp", CLUSTER / "handoff_auto.cpp"
RING, RING_AUTO = CLUSTER / "a2a3_fifo_c2v.cpp", CLUSTER / "a2a3_fifo_c2v_auto.cpp"


@pytest.fixture(autouse=True)
def _preambles_beside_copies(tmp_path):
    """The cluster kernels include "cluster_preambles.hpp" from their own folder: an edited copy a
    test writes into tmp_path finds it beside it there too."""
    shutil.copy(CLUSTER / "cluster_preambles.hpp", tmp_path)


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def edited(tmp_path, path: Path, old: str, new: str) -> tuple[Path, str]:
    text = path.read_text()
    assert text.count(old) == 1
    out = tmp_path / path.name
    out.write_text(text.replace(old, new))
    return out, text


def cluster_of(path: Path, arch: str, auto: bool = False) -> dict:
    kernels = load_kernels(str(path), FrontendOptions(arch=arch, auto_mode=auto), Reporter())
    return {k.core: k for k in kernels}


# ------------------------------------------------------------------------------------------ verify


@pytest.mark.parametrize("arch, auto, manual", [("a5", HANDOFF_AUTO, HANDOFF), ("a2a3", RING_AUTO, RING)])
def test_a_cluster_verifies_against_its_auto_form(capsys, arch, auto, manual):
    status, out, err = run(capsys, "verify", "--arch", arch, auto, manual)
    assert status == 0 and "error" not in err, err
    assert "(cluster: cube, vec0, vec1 run together)" in out
    assert "outputs equivalent" in out and "manual kernel: 0 race(s), 0 flag problem(s)" in out


@pytest.mark.parametrize("arch, auto", [("a5", HANDOFF_AUTO), ("a2a3", RING_AUTO)])
def test_a_cluster_verifies_against_its_rewrite(capsys, arch, auto):
    status, out, err = run(capsys, "verify", "--arch", arch, auto)
    assert status == 0 and "error" not in err, err
    assert "(cluster: cube, vec0, vec1 run together) vs the rewrite: outputs equivalent" in out
    assert "manual kernel: 0 race(s), 0 flag problem(s)" in out


def test_manual2auto_of_a_cluster_kernel_verifies_against_it(capsys, tmp_path):
    auto = tmp_path / "handoff_auto.cpp"
    status, _, err = run(capsys, "manual2auto", "--arch", "a5", HANDOFF, "-o", auto)
    assert status == 0, err
    assert "TASSIGN" not in auto.read_text() and auto.read_text().count("wait_intra_block") == 5
    status, out, err = run(capsys, "verify", "--arch", "a5", auto, HANDOFF)
    assert status == 0 and "(cluster: cube, vec0, vec1 run together)" in out and "outputs equivalent" in out, err


FA_SAMPLE = Path(__file__).parent.parent / "samples" / "flash_attention"
FA_SMALL = "FlashAttentionKernel<32, 32, 256, 64, 1>"


def test_the_flash_attention_sample_verifies_against_its_twin_as_a_cluster(capsys):
    """The a2a3 sample's AUTO kernel (three TPipe rings in GM) against its hand-written twin, all
    three cores at once, at the small instantiation."""
    status, out, err = run(capsys, "verify", "--arch", "a2a3", "--entry", FA_SMALL, FA_SAMPLE / "auto.cpp",
                           FA_SAMPLE / "manual.cpp")
    assert status == 0, err
    assert "(cluster: cube, vec0, vec1 run together) vs" in out and "outputs equivalent" in out
    assert "manual kernel: 0 race(s), 0 flag problem(s)" in out


def test_the_flash_attention_twin_timeline_shows_every_core_and_the_rings(capsys, tmp_path):
    svg = tmp_path / "fa.svg"
    status, out, err = run(capsys, "simulate", "--arch", "a2a3", "--entry", FA_SMALL, FA_SAMPLE / "manual.cpp",
                           "--timeline", svg)
    assert status == 0, err
    assert "cores run at once: cube, vec0, vec1" in out
    pic = svg.read_text()
    lanes = set(re.findall(r'font-weight="bold">([a-z0-9]+\.[A-Z0-9]+)<', pic))
    assert {"cube.M", "cube.FIX", "vec0.V", "vec0.MTE3", "vec1.V", "vec1.MTE3"} <= lanes
    # S and O from the cube core to each vector core, P from each vector core to the cube core.
    for core in ("vec0", "vec1"):
        assert f'data-set-lane="cube.FIX" data-wait-lane="{core}.S" data-op="TPUSH -&gt; TPOP"' in pic
        assert f'data-set-lane="{core}.MTE3" data-wait-lane="cube.S" data-op="TPUSH -&gt; TPOP"' in pic


def test_a_deleted_cross_core_wait_fails_verify_with_the_race_at_its_line(capsys, tmp_path):
    path, text = edited(tmp_path, HANDOFF, "        wait_intra_block(PIPE_MTE2, 0);\n", "\n")
    status, out, err = run(capsys, "verify", "--arch", "a5", HANDOFF_AUTO, path)
    assert status == 1
    assert (f"{path}:{line_of(text, 'TLOAD(x, gPart);')}:9: error: data race (RAW or WAR, across cores) on GM "
            "argument ws bytes [0x0, 0x800): TLOAD [vec0.MTE2] reads gPart, and TSTORE [cube.FIX] at "
            f"{line_of(text, 'TSTORE(gW, product);')}:9 writes gW, in either order; needs a cross-core flag "
            "between cube.FIX and vec0.MTE2") in err, err
    assert re.search(r"manual kernel: [1-9]\d* race\(s\)", out)


def test_a_deleted_cross_core_set_fails_verify_with_the_deadlock_at_its_wait(capsys, tmp_path):
    path, text = edited(tmp_path, HANDOFF, "        set_intra_block(PIPE_MTE2, 1);\n", "\n")
    status, _, err = run(capsys, "verify", "--arch", "a5", HANDOFF_AUTO, path)
    assert status == 1
    assert (f"{path}:{line_of(text, 'wait_intra_block(PIPE_FIX, 1);   //')}:13: error: deadlock: "
            "wait_intra_block(PIPE_FIX, 1) on cube is never satisfied") in err, err


def test_a_manual_kernel_that_computes_otherwise_differs(capsys, tmp_path):
    path, _ = edited(tmp_path, HANDOFF, "TMULS(x, x, 2.0f);", "TMULS(x, x, 3.0f);")
    status, out, _ = run(capsys, "verify", "--arch", "a5", HANDOFF_AUTO, path)
    assert status == 1 and "outputs NOT equivalent (1 argument(s) differ)" in out
    assert "mismatch: out: 2048 of 2048 float32 elements differ" in out
    assert "manual kernel: 0 race(s), 0 flag problem(s)" in out


def test_an_auto_form_that_never_signals_its_wait_does_not_run_to_its_end(capsys, tmp_path):
    path, text = edited(tmp_path, HANDOFF_AUTO, "        set_intra_block(PIPE_MTE2, 1);\n", "\n")
    status, _, err = run(capsys, "verify", "--arch", "a5", path, HANDOFF)
    assert status == 1
    assert f"the AUTO kernel {path} does not run to its end on the cluster" in err
    assert (f"{path}:{line_of(text, 'wait_intra_block(PIPE_FIX, 1);')}:13: error: deadlock: "
            "wait_intra_block(PIPE_FIX, 1) on cube is never satisfied") in err


def test_verify_compares_the_same_cores(capsys):
    status, _, err = run(capsys, "verify", "--arch", "a5", "--core", "cube", HANDOFF_AUTO, HANDOFF)
    assert status == 0, err  # one core type alone: its cross-core flags passed through with a warning
    assert "warning: --core cube: only this core's pipes are compared (core cube)" in err


def test_verify_refuses_a_manual_kernel_with_other_cores(capsys, tmp_path):
    text = HANDOFF.read_text()
    start, end = text.index("#if defined(__DAV_CUBE__)"), text.index("#if defined(__DAV_VEC__)")
    vec_only = tmp_path / "vec_only.cpp"
    vec_only.write_text(text[:start] + text[end:])
    status, _, err = run(capsys, "verify", "--arch", "a5", HANDOFF_AUTO, vec_only)
    assert status == 2
    assert (f"{HANDOFF_AUTO} has code for the cube and vec core(s) of handoff but {vec_only} for the vec core(s); "
            "verify compares the same cores") in err


def test_the_manual_data_run_waits_at_a_full_ring_and_an_empty_one():
    """The ring has two slots and four tiles: the third push (slot 0 again) runs after both vector
    cores loaded the first tile, and every load after the push that filled its slot. The data run
    executes the check's order, so these are orders of the data run, not only of the check."""
    trace = cluster.cluster_trace(cluster_of(RING, "a2a3"), profile("a2a3"), {"block_idx": 0, "block_num": 1},
                                  10 ** 6, require_semantics=True)
    result = pipes.check(trace)
    assert result.clean and not result.stuck
    at = {i: k for k, i in enumerate(result.order)}
    pushes = [s.index for s in trace.steps if s.core == "cube" and s.name == "TSTORE"]
    loads = {c: [s.index for s in trace.steps if s.core == c and s.name == "TLOAD"] for c in ("vec0", "vec1")}
    assert len(pushes) == 4 and all(len(v) == 4 for v in loads.values())
    for c, mine in loads.items():
        assert all(at[pushes[n]] < at[mine[n]] for n in range(4)), c  # a pop waits for its push
        assert all(at[mine[n]] < at[pushes[n + 2]] for n in range(2)), c  # a push waits for the free


def test_a_dual_mode_move_gives_each_vector_core_its_half():
    """mpipe_c2v.cpp moves each 32x32 product into the vector cores' UB split by rows
    (DualModeSplitM): the first vector core halves rows 0..15, the second rows 16..31."""
    import numpy as np

    from ptorewrite.emulator import data
    from ptorewrite.emulator.verify import initial_gm

    trace = cluster.cluster_trace(cluster_of(CLUSTER / "mpipe_c2v.cpp", "a5"), profile("a5"),
                                  {"block_idx": 0, "block_num": 1}, 10 ** 6, require_semantics=True)
    result = pipes.check(trace)
    assert result.clean
    gm, _ = initial_gm([trace], 0)
    a = gm["a"].view(np.float16).reshape(32, 32).astype(np.float32)
    b = gm["b"].view(np.float16).reshape(32, 32).astype(np.float32)
    data.run(trace, gm, order=result.order, space_of=cluster.space_of, dual_split=cluster.dual_split)
    out = gm["out"].view(np.float32).reshape(4, 2, 16, 32)
    expected = 0.5 * (a @ b)
    for t in range(4):
        for sub in range(2):
            np.testing.assert_allclose(out[t, sub], expected[sub * 16:(sub + 1) * 16], rtol=1e-5, atol=1e-5)


def test_the_auto_data_run_keeps_each_core_in_program_order_and_waits_across_cores():
    trace = cluster.cluster_trace(cluster_of(HANDOFF_AUTO, "a5", auto=True), profile("a5"),
                                  {"block_idx": 0, "block_num": 1}, 10 ** 6, require_semantics=True)
    matches, _ = pipes.match_flags(trace)
    order, stuck = cluster.program_order(trace, matches)
    assert not stuck and sorted(order) == list(range(len(trace.steps)))
    at = {i: k for k, i in enumerate(order)}
    for core in trace.cores:
        mine = [s.index for s in trace.steps if s.core == core]
        assert [i for i in order if i in set(mine)] == mine
    for w, s in matches.items():
        assert at[s] < at[w]


# ---------------------------------------------------------------------------------------- simulate


def total_cycles(out: str) -> int:
    return int(re.search(r": ([\d,]+) cycles", out).group(1).replace(",", ""))


def test_simulate_times_the_whole_cluster_at_once(capsys):
    status, out, err = run(capsys, "simulate", "--arch", "a5", HANDOFF)
    assert status == 0 and "error" not in err
    assert out.startswith("cluster of kernel handoff (manual, a5, pipelined)")
    assert "cores run at once: cube, vec0, vec1" in out
    for lane in ("cube.FIX", "cube.M", "vec0.MTE2", "vec1.MTE3"):
        assert re.search(rf"^  {re.escape(lane)} +\d", out, re.MULTILINE), lane
    cluster_total = total_cycles(out)
    alone = []
    for core, extra in (("cube", ()), ("vec", ("--set", "subblock_idx=0"))):
        status, one, _ = run(capsys, "simulate", "--arch", "a5", "--core", core, *extra, HANDOFF)
        assert status == 0
        alone.append(total_cycles(one))
    assert cluster_total >= max(alone)


def test_a_cross_core_wait_delays_its_pipe_until_the_other_cores_set(capsys):
    from ptorewrite.analysis.execution import unroll
    from ptorewrite.emulator import schedule

    status, out, _ = run(capsys, "simulate", "--arch", "a5", HANDOFF)
    text = HANDOFF.read_text()
    set_line = line_of(text, "set_intra_block(PIPE_FIX, 0);")
    assert status == 0 and re.search(rf"vec0\.MTE2 wait_intra_block\(PIPE_MTE2, 0\) +@\d+:9 +after flag set at "
                                     rf"{set_line}:9 \(cube\.FIX\)", out), out
    kernels = cluster_of(HANDOFF, "a5")
    values = {"block_idx": 0, "block_num": 1}
    trace = cluster.cluster_trace(kernels, profile("a5"), values, 10 ** 6)
    sched = schedule.simulate(trace)
    steps = trace.steps
    raised = next(i for i, s in enumerate(steps) if s.core == "cube" and s.kind == "xset")
    load = next(i for i, s in enumerate(steps) if s.core == "vec0" and s.name == "TLOAD")
    assert sched.times[load].start >= sched.times[raised].end > 0
    # Alone, the vector core's pipes have nothing to wait for: the load starts far earlier.
    alone = unroll(kernels["vec"], profile("a5"), {**values, "subblock_idx": 0, "subblock_num": 2})
    alone_sched = schedule.simulate(alone)
    first = next(i for i, s in enumerate(alone.steps) if s.name == "TLOAD")
    assert alone_sched.times[first].start < sched.times[raised].end


def test_the_cluster_timeline_has_a_lane_per_core_and_pipe_and_cross_core_edges(capsys, tmp_path):
    svg = tmp_path / "ring.svg"
    status, out, _ = run(capsys, "simulate", "--arch", "a2a3", RING, "--timeline", svg)
    assert status == 0 and f"timeline written to {svg}" in out
    pic = svg.read_text()
    lanes = re.findall(r'font-weight="bold">([a-z0-9]+\.[A-Z0-9]+)<', pic)
    assert {"cube.MTE2", "cube.M", "cube.FIX", "vec0.MTE2", "vec0.V", "vec1.MTE2", "vec1.MTE3"} <= set(lanes)
    text = RING.read_text()
    push, pop = line_of(text, "TPUSH<"), line_of(text, "TPOP<")
    # The ring's "filled" flag: from the cube core's push to each vector core's pop (ffts waits
    # stall the whole core: drawn to its scalar lane), once per tile.
    for core in ("vec0", "vec1"):
        assert len(re.findall(rf'<line class="xflag fifo" data-set-line="{push}" data-wait-line="{pop}" '
                              rf'data-set-lane="cube.FIX" data-wait-lane="{core}.S" data-op="TPUSH -&gt; TPOP"',
                              pic)) == 4
    # And "freed": from a vector core's pop back to the cube core's push (a whole-core wait on a2a3).
    assert re.search(rf'<line class="xflag fifo" data-set-line="{pop}" data-wait-line="{push}" '
                     r'data-set-lane="vec0.MTE2" data-wait-lane="cube.S" data-op="TPOP -&gt; TPUSH"', pic)
    html = tmp_path / "ring.html"
    status, _, _ = run(capsys, "simulate", "--arch", "a2a3", RING, "--timeline", html)
    assert status == 0 and html.read_text().startswith("<!DOCTYPE html>") and 'class="xflag fifo"' in html.read_text()
