"""SYNCALL, the barrier across all blocks of a launch, and what its kernels are written with:
a partial barrier steered by a value known only at launch, helpers used as values that run on the
core, `ld_dev`, and the cores of one cluster meeting at SYNCALL<SyncCoreType::Mix>.

Kernels are the project's own (tests/kernels/syncall/), in the shapes of pto-isa's SYNCALL tests.
Each check here is paired with a variant of the same kernel that it must report.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from ptorewrite.cli import main as cli_main

KERNELS = Path(__file__).resolve().parent / "kernels" / "syncall"
PARTIAL = KERNELS / "partial_barrier.cpp"
VALUE_HELPER = KERNELS / "value_helper.cpp"
CLUSTER = KERNELS / "cluster_barrier.cpp"
DEVICE_LOAD = KERNELS / "device_load.cpp"


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    rc = cli_main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_partial_barrier_is_checked_both_ways_without_its_block_count(capsys):
    # `if (me >= joined) { ...; return; }`: `joined` only selects the blocks that take part, so
    # check runs the test both ways rather than asking for it; the body counts it as unknown.
    rc, out, err = run_cli(capsys, "check", PARTIAL)
    assert rc == 0, err
    assert "--set" not in err
    assert f"{PARTIAL} (if (block_idx >= joined) taken): 0 race(s), 0 flag problem(s) " \
        "(2 instructions and 2 syncs issued)" in out
    assert f"{PARTIAL} (if (block_idx >= joined) not taken): 0 race(s), 0 flag problem(s) " \
        "(6 instructions and 7 syncs issued)" in out
    assert f"{PARTIAL}:{line_of(PARTIAL, 'copy_gm_to_ubuf(')}:5: warning: copy_gm_to_ubuf: " \
        "'static_cast<__ubuf__ void *>(seen)' depends on joined, not given" in err
    # The same kernel without the drain after the read-back: found in the branch that reads.
    rc, out, err = run_cli(capsys, "check", "-DSKIP_DRAIN", PARTIAL)
    assert rc == 1
    assert "(if (block_idx >= joined) taken): 0 race(s)" in out
    assert "(if (block_idx >= joined) not taken): 1 race(s)" in out
    assert f"{PARTIAL}:{line_of(PARTIAL, 'sum = sum + seen')}:9: error: data race (RAW) on UB" in out + err


def test_a_given_block_count_is_used(capsys):
    rc, out, err = run_cli(capsys, "check", "--set", "joined=4", "--block-idx", "5", PARTIAL)
    assert rc == 0, err
    assert f"{PARTIAL}: 0 race(s), 0 flag problem(s) (2 instructions and 2 syncs issued)" in out


def test_soft_barrier_drains_the_pipes_before_and_after(capsys):
    rc, out, err = run_cli(capsys, "ir", PARTIAL)
    assert rc == 0, err
    at = line_of(PARTIAL, "SYNCALL<")
    assert [ln.strip() for ln in out.splitlines() if ln.rstrip().endswith(f"@{at}:5")] == \
        [f"pipe_barrier(ALL)  @{at}:5"] * 2
    # One warning per kernel says what is and is not analysed.
    assert err.count("warning: SYNCALL is a barrier across all blocks of the launch") == 1
    assert "the other blocks, and what they read and write in GM, are not analysed" in err


def test_a_value_helper_that_moves_data_runs_where_it_is_called(capsys):
    rc, out, err = run_cli(capsys, "ir", VALUE_HELPER)
    assert rc == 0, err
    call = line_of(VALUE_HELPER, "const int32_t set = ")
    copy = line_of(VALUE_HELPER, "copy_gm_to_ubuf(")
    ret = line_of(VALUE_HELPER, "return count;")
    body = out[out.index("body:"):].splitlines()
    col = VALUE_HELPER.read_text().splitlines()[call - 1].index("CountSet(") + 1
    assert any(ln.startswith("  copy_gm_to_ubuf(out raw UB@4096") and ln.endswith(f"@{copy}:5 via {call}:{col}")
               for ln in body)
    assert f"  CountSet@return = count  @{ret}:5" in body
    # Used in an assignment, and called for its work alone: inlined the same way.
    assert sum(ln.startswith("  copy_gm_to_ubuf(") for ln in body) == 3
    assert f"  total = (total + CountSet@return#2)  @{call + 2}:5" in body
    # A helper that only computes still runs at compile time: its value sizes the tile.
    assert "row: Vec fp32 1x48" in out
    rc, out, err = run_cli(capsys, "check", VALUE_HELPER)
    assert rc == 0, err
    assert "0 race(s), 0 flag problem(s) (9 instructions and 7 syncs issued)" in out
    # Its statements are checked like the kernel's: without the drain, the scalar reads race.
    rc, out, err = run_cli(capsys, "check", "-DSKIP_DRAIN", VALUE_HELPER)
    assert rc == 1
    read = line_of(VALUE_HELPER, "if (stage[i * 8] == 1)")
    assert f"{VALUE_HELPER}:{read}:9: error: data race (RAW) on UB bytes [0x1000, 0x30000): ScalarLoad [S] reads " \
        f"stage[i * 8] while copy_gm_to_ubuf [MTE2] at {copy}:5 via {call}:" in out + err


def test_ld_dev_is_a_scalar_read_of_gm(capsys):
    rc, out, err = run_cli(capsys, "ir", DEVICE_LOAD)
    assert rc == 0, err
    assert f"ScalarLoad(raw flag+0[1x4B/4B])  [S]  @{line_of(DEVICE_LOAD, 'ld_dev(')}:5" in out
    rc, out, err = run_cli(capsys, "check", DEVICE_LOAD)
    assert rc == 0, err
    rc, out, err = run_cli(capsys, "check", "-DSKIP_DRAIN", DEVICE_LOAD)
    assert rc == 1 and "error: data race (RAW) on GM argument flag bytes [0x0, 0x4): ScalarLoad [S]" in out + err
    rc, out, err = run_cli(capsys, "check", "-DLOAD_OFFSET=4", DEVICE_LOAD)
    assert rc == 2
    assert "error: ld_dev with an offset other than 0 is not supported" in err


def test_the_cores_of_a_cluster_meet_at_a_mix_barrier(capsys):
    # The core-type guards are in the header the kernel includes: both cores are read, and their
    # SYNCALL<SyncCoreType::Mix> makes them one cluster's program, checked together.
    at = line_of(CLUSTER, "SYNCALL<SyncCoreType::Mix>()")
    rc, out, err = run_cli(capsys, "ir", "--core", "vec", CLUSTER)
    assert rc == 0, err
    mine = [ln.strip() for ln in out.splitlines() if ln.rstrip().endswith(f"@{at}:5")]
    assert mine == [f"pipe_barrier(ALL)  @{at}:5", f"SYNCALL cluster set(S, 0)  @{at}:5",
                    f"SYNCALL cluster wait(S, 1)  @{at}:5"]
    rc, out, err = run_cli(capsys, "ir", "--core", "cube", CLUSTER)
    assert rc == 0, err
    mine = [ln.strip() for ln in out.splitlines() if ln.rstrip().endswith(f"@{at}:5")]
    assert mine == [f"pipe_barrier(ALL)  @{at}:5", f"SYNCALL cluster wait(S, 0)  @{at}:5",
                    f"SYNCALL cluster wait(S, 16)  @{at}:5", f"SYNCALL cluster set(S, 1)  @{at}:5",
                    f"SYNCALL cluster set(S, 17)  @{at}:5"]
    rc, out, err = run_cli(capsys, "check", CLUSTER)
    assert rc == 0, err
    assert f"{CLUSTER} (cluster: cube, vec0, vec1 run together): 0 race(s), 0 flag problem(s)" in out
    rc, out, err = run_cli(capsys, "check", "-DSOFT_BARRIER", CLUSTER)
    assert rc == 0, err
    # Reading the other vector core's slot before the barrier: the check sees the race.
    rc, out, err = run_cli(capsys, "check", "-DREAD_EARLY", CLUSTER)
    assert rc == 1
    assert ("error: data race (RAW or WAR, across cores) on GM argument slots bytes [0x0, 0x20): copy_gm_to_ubuf "
            "[vec1.MTE2] reads") in out + err
    # One core alone: its SYNCALL is its own barrier, with no signal left waiting.
    rc, out, err = run_cli(capsys, "check", "--core", "vec", CLUSTER)
    assert rc == 0, err
    assert "intra_block" not in err


def test_a_pointer_written_on_every_run_is_not_checked_null(capsys):
    kernel = KERNELS / "null_tests.cpp"
    rc, out, err = run_cli(capsys, "check", kernel)
    assert rc == 0, err
    assert out.splitlines() == [
        f"{kernel} (extra null): 0 race(s), 0 flag problem(s) (3 instructions and 1 syncs issued)",
        f"{kernel} (extra not null): 0 race(s), 0 flag problem(s) (4 instructions and 1 syncs issued)"]
