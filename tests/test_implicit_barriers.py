"""The PIPE_V barriers a2a3 instructions issue themselves, as the sync planner counts them.

pto-isa's a2a3 float row reductions end with a pipe_barrier(PIPE_V) of their own, and its row
broadcasts of a column vector drain PIPE_V between copying the column into their scratch and
computing (`instructions.vector_barrier_inside`). `check` counts these barriers; the planner counts
the same ones (`execution.mark_barrier_inside` marks the accesses for both), so a rewrite adds no
barrier that such an instruction already issues, keeps one where the instruction's barrier does
not lie between the two accesses, and keeps one at the width where a reduction returns before
doing anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from _samples import SAMPLES

from ptorewrite.analysis.instructions import vector_barrier_inside
from ptorewrite.cli import main

KERNEL = Path(__file__).parent / "kernels" / "sync" / "row_statistics.cpp"


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def rewrite(capsys, tmp_path, *flags: str) -> tuple[Path, str]:
    out = tmp_path / "row_statistics.manual.cpp"
    status, _, err = run(capsys, "auto2manual", KERNEL, "-o", out, *flags)
    assert status == 0, err
    text = out.read_text()
    start = text.index("    TLOAD(x, gIn);")
    return out, text[start:text.index("#endif", start)]


def checked_and_verified(capsys, out: Path, *flags: str) -> None:
    status, report, err = run(capsys, "check", out, *flags)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in report, report + err
    status, report, err = run(capsys, "verify", KERNEL, out, *flags)
    assert status == 0 and "outputs equivalent" in report and "0 race(s)" in report, report + err


def test_no_barrier_after_a_reduction_or_before_a_broadcast_that_reads_its_output(capsys, tmp_path):
    # TROWEXPANDSUB and TROWEXPANDDIV read what the reduction before them wrote: its own barrier
    # orders them. TEXP reads y, which TROWEXPANDSUB writes after its barrier; TROWSUM reads y
    # before its own (which comes last); TROWEXPANDMUL writes the hidden scratch that
    # TROWEXPANDDIV reads back after its barrier: those three keep theirs.
    out, body = rewrite(capsys, tmp_path)
    assert body == """\
    TLOAD(x, gIn);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW x: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW x: MTE2 -> V
    TROWMAX(rowMax, x, tmp);
    TROWEXPANDSUB(y, x, rowMax);
    pipe_barrier(PIPE_V);  // RAW y: TROWEXPANDSUB -> TEXP on PIPE_V
    TEXP(y, y);
    pipe_barrier(PIPE_V);  // RAW y: TEXP -> TROWSUM on PIPE_V
    TROWSUM(rowSum, y, tmp);
    TROWEXPANDDIV(z, y, rowSum);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW z: V -> MTE3
    pipe_barrier(PIPE_V);  // WAR the hidden UB scratch: TROWEXPANDDIV -> TROWEXPANDMUL on PIPE_V
    TROWEXPANDMUL(w, y, rowMax);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW w: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW z: V -> MTE3
    TSTORE(gZ, z);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW w: V -> MTE3
    TSTORE(gW, w);
"""
    checked_and_verified(capsys, out)


def test_at_the_width_where_a_reduction_returns_early_its_consumers_keep_their_barriers(capsys, tmp_path):
    # 96 floats a row (1.5 repeats of 256 bytes) with a scratch tile of 128 bytes a row: pto-isa's
    # reduction does nothing, barrier included, so the broadcasts after it need barriers.
    out, body = rewrite(capsys, tmp_path, "-DROW_COLS=96")
    assert body == """\
    TLOAD(x, gIn);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW x: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW x: MTE2 -> V
    TROWMAX(rowMax, x, tmp);
    pipe_barrier(PIPE_V);  // RAW rowMax: TROWMAX -> TROWEXPANDSUB on PIPE_V
    TROWEXPANDSUB(y, x, rowMax);
    pipe_barrier(PIPE_V);  // RAW y: TROWEXPANDSUB -> TEXP on PIPE_V
    TEXP(y, y);
    pipe_barrier(PIPE_V);  // RAW y: TEXP -> TROWSUM on PIPE_V
    TROWSUM(rowSum, y, tmp);
    pipe_barrier(PIPE_V);  // RAW rowSum: TROWSUM -> TROWEXPANDDIV on PIPE_V
    TROWEXPANDDIV(z, y, rowSum);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW z: V -> MTE3
    pipe_barrier(PIPE_V);  // WAR the hidden UB scratch: TROWEXPANDDIV -> TROWEXPANDMUL on PIPE_V
    TROWEXPANDMUL(w, y, rowMax);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW w: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW z: V -> MTE3
    TSTORE(gZ, z);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW w: V -> MTE3
    TSTORE(gW, w);
"""
    checked_and_verified(capsys, out, "-DROW_COLS=96")


@pytest.mark.parametrize("flags", [(), ("-DROW_COLS=96",)])
def test_each_barrier_the_rewrite_keeps_is_needed(capsys, tmp_path, flags):
    """`check` (the same model of the instructions' barriers) reports a race without any one."""
    out, _ = rewrite(capsys, tmp_path, *flags)
    lines = out.read_text().splitlines(keepends=True)
    barriers = [n for n, line in enumerate(lines) if line.strip().startswith("pipe_barrier(PIPE_V);")]
    assert barriers
    for n in barriers:
        cut = tmp_path / f"cut{n}.cpp"
        cut.write_text("".join(lines[:n] + lines[n + 1:]))
        status, report, err = run(capsys, "check", cut, *flags)
        assert status != 0 and "0 race(s)" not in report, (n, report + err)


RUNTIME_WIDTH = Path(__file__).parent / "kernels" / "sync" / "row_max_runtime_width.cpp"


@pytest.mark.parametrize("scratch_cols, kept", [(32, True), (64, False)])
def test_a_width_not_known_counts_as_the_one_that_returns_early(capsys, tmp_path, scratch_cols, kept):
    """`cols` is a kernel argument: with a scratch tile of 128 bytes a row, 65 to 127 floats make
    TROWMAX return without its barrier, so the rewrite keeps one; with 256 bytes it never does."""
    out = tmp_path / "row_max.manual.cpp"
    flag = f"-DSCRATCH_COLS={scratch_cols}"
    status, _, err = run(capsys, "auto2manual", RUNTIME_WIDTH, "-o", out, flag)
    assert status == 0, err
    text = out.read_text()
    gap = text[text.index("TROWMAX(rowMax, x, tmp);"):text.index("TROWEXPANDSUB(y, x, rowMax);")]
    assert ("pipe_barrier(PIPE_V);  // RAW rowMax: TROWMAX -> TROWEXPANDSUB on PIPE_V" in gap) == kept, gap
    for cols in (40, 96, 128):
        status, report, err = run(capsys, "verify", RUNTIME_WIDTH, out, flag, "--set", f"cols={cols}")
        assert status == 0 and "outputs equivalent" in report and "0 race(s)" in report, report + err
    if kept:
        # Without it, `check` finds the race at a degenerate width and none at a full one.
        cut = tmp_path / "cut.cpp"
        cut.write_text(text.replace("pipe_barrier(PIPE_V);  // RAW rowMax", "// RAW rowMax"))
        for cols, races in ((96, True), (128, False)):
            status, report, err = run(capsys, "check", cut, flag, "--set", f"cols={cols}")
            assert ("0 race(s)" not in report) == races, (cols, report + err)


def test_the_model_takes_a_width_not_known_as_possibly_degenerate():
    rows = ["RowMajor", "RowMajor", "RowMajor"]
    types = ["fp32"] * 3
    # Source rows of 512 bytes, a scratch of 128: a valid width of 65 to 127 floats returns early.
    assert vector_barrier_inside("TROWSUM", "a2a3", rows, types, [(4, 4), (512, None), (128, 128)]) is None
    assert vector_barrier_inside("TROWSUM", "a2a3", rows, types, [(4, 4), (512, 384), (128, 128)]) is None
    assert vector_barrier_inside("TROWSUM", "a2a3", rows, types, [(4, 4), (512, 512), (128, 128)]) == -1
    # A scratch of 256 bytes a row: every width issues the barrier.
    assert vector_barrier_inside("TROWSUM", "a2a3", rows, types, [(4, 4), (512, None), (256, 256)]) == -1
    # Rows that cannot hold more than 256 bytes never reach the early return.
    assert vector_barrier_inside("TROWMAX", "a2a3", rows, types, [(4, 4), (256, None), (128, 128)]) == -1
    assert vector_barrier_inside("TROWSUM", "a5", rows, types, [(4, 4), (512, 512), (256, 256)]) is None


def test_the_attention_sample_has_no_barrier_after_its_row_reductions(capsys, tmp_path):
    out = tmp_path / "flash_attention.manual.cpp"
    status, _, err = run(capsys, "auto2manual", SAMPLES / "flash_attention" / "auto.cpp", "-o", out)
    assert status == 0, err
    lines = [line.strip() for line in out.read_text().splitlines()]
    reductions = [n for n, line in enumerate(lines) if line.startswith(("TROWMAX(", "TROWSUM("))]
    assert len(reductions) == 2
    assert not [lines[n + 1] for n in reductions if lines[n + 1].startswith("pipe_barrier")]


QUANTISED = Path(__file__).parent / "kernels" / "sync" / "quantised_store.cpp"


def test_the_quantised_store_drain_orders_the_parameters_move_before_it(capsys, tmp_path):
    """a2a3's TSTORE_FP drains PIPE_FIX before it stores (`instructions.drains_before`): the TMOV
    that fills its Scaling tile needs no barrier of the rewrite's, nor does the TMOV_FP after the
    store that reads the same tile. `check` issues the same drain and finds the rewrite clean.
    (The emulator does not compute the fixpipe's quantisation, so `verify` cannot run it.)"""
    expected = QUANTISED.with_name("quantised_store.manual.cpp")
    status, out, err = run(capsys, "auto2manual", "--arch", "a2a3", QUANTISED, "--check", expected)
    assert status == 0, out + err
    assert "pipe_barrier" not in expected.read_text()
    status, report, err = run(capsys, "check", "--arch", "a2a3", expected)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in report, report + err
    # Without the drain (the same kernel on a5, whose TSTORE_FP has none) the barrier is needed.
    a5 = tmp_path / "quantised_store.a5.manual.cpp"
    status, _, err = run(capsys, "auto2manual", "--arch", "a5", QUANTISED, "-o", a5)
    assert status == 0, err
    assert "    pipe_barrier(PIPE_FIX);  // RAW scale: TMOV -> TSTORE_FP on PIPE_FIX\n" \
           "    TSTORE_FP(outGlobal, acc, scale);\n" in a5.read_text()
    status, report, err = run(capsys, "check", "--arch", "a5", a5)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in report, report + err
