"""The final normalisation of attention: row-broadcast divides on distinct tiles are not ordered
against each other. On a2a3 a row broadcast without a scratch tile of its own works in the hidden
UB scratch range, so two of them in a row need a pipe_barrier(PIPE_V); given distinct scratch
tiles (pto-isa's tmp form works in that tile instead) they touch no common bytes and need none."""

from __future__ import annotations

from pathlib import Path

import pytest
from _samples import SAMPLES

from ptorewrite.analysis.instructions import uses_hidden_scratch
from ptorewrite.cli import main

KERNEL = Path(__file__).parent / "kernels" / "normalise_halves.cpp"
LEFT = "TROWEXPANDDIV(oLeft, oLeft, sum, tmpLeft);"
RIGHT = "TROWEXPANDDIV(oRight, oRight, sum, tmpRight);"


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def rewrite(capsys, tmp_path, text: str, *flags: str) -> str:
    src = tmp_path / "normalise.cpp"
    src.write_text(text)
    out = tmp_path / "normalise.manual.cpp"
    status, _, err = run(capsys, "auto2manual", src, "-o", out, *flags)
    assert status == 0, err
    return out.read_text()


def between(text: str, first: str, second: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines()]
    a = next(i for i, line in enumerate(lines) if line.startswith(first))
    b = next(i for i, line in enumerate(lines) if line.startswith(second))
    return lines[a + 1:b]


def test_the_divides_on_distinct_tiles_have_no_barrier_between_them(capsys, tmp_path):
    text = rewrite(capsys, tmp_path, KERNEL.read_text())
    chain = text[text.index("    TADD(sum, partA, partB);"):text.index("#endif")]
    assert chain == """\
    TADD(sum, partA, partB);
    ColsT oLeft;
    ColsT oRight;
    TSUBVIEW(oLeft, o, 0, 0);
    TSUBVIEW(oRight, o, 0, COLS / 2);
    pipe_barrier(PIPE_V);  // RAW sum: TADD -> TROWEXPANDDIV on PIPE_V
    TROWEXPANDDIV(oLeft, oLeft, sum, tmpLeft);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW oLeft: V -> MTE3
    TROWEXPANDDIV(oRight, oRight, sum, tmpRight);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW oRight: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW oLeft: V -> MTE3
    TSTORE(gOutLeft, oLeft);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW oRight: V -> MTE3
    TSTORE(gOutRight, oRight);
"""
    out = tmp_path / "normalise.manual.cpp"
    status, report, err = run(capsys, "check", out)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in report, err
    status, report, err = run(capsys, "verify", KERNEL, out)
    assert status == 0 and "outputs equivalent" in report, err


@pytest.mark.parametrize("old, new, reason", [
    # One scratch tile for both divides: the second overwrites what the first still reads.
    (RIGHT, "TROWEXPANDDIV(oRight, oRight, sum, tmpLeft);", "tmpLeft"),
    # No scratch tiles: both work in the hidden UB scratch range.
    ((LEFT, RIGHT), ("TROWEXPANDDIV(oLeft, oLeft, sum);", "TROWEXPANDDIV(oRight, oRight, sum);"),
     "the hidden UB scratch"),
])
def test_divides_sharing_scratch_bytes_keep_their_barrier(capsys, tmp_path, old, new, reason):
    text = KERNEL.read_text()
    for a, b in zip(*((old, new) if isinstance(old, tuple) else ((old,), (new,))), strict=True):
        text = text.replace(a, b)
    out = rewrite(capsys, tmp_path, text)
    gap = between(out, "TROWEXPANDDIV(oLeft", "TROWEXPANDDIV(oRight")
    barriers = [line for line in gap if line.startswith("pipe_barrier(PIPE_V);")]
    assert len(barriers) == 1 and reason in barriers[0], gap


def test_on_a5_the_vector_pipe_needs_no_barrier_at_all(capsys, tmp_path):
    out = rewrite(capsys, tmp_path, KERNEL.read_text(), "--arch", "a5")
    assert "pipe_barrier" not in out


def test_the_hidden_scratch_is_used_only_without_a_scratch_tile():
    assert uses_hidden_scratch("TROWEXPANDDIV", ["w", "r", "r"])
    assert not uses_hidden_scratch("TROWEXPANDDIV", ["w", "r", "r", "rw"])
    assert uses_hidden_scratch("TROWEXPAND", ["w", "r"])
    assert not uses_hidden_scratch("TADD", ["w", "r", "r"])


def test_the_sample_twin_ends_with_the_same_chain():
    # The hand-written flash attention's final divides, as the rewrite above places them.
    twin = (SAMPLES / "flash_attention" / "manual.cpp").read_text()
    gap = between(twin, "TROWEXPANDDIV(oLeft, oLeft, runSum, tmpLeft);", "TROWEXPANDDIV(oRight, oRight, runSum, tmpRight);")
    assert gap == ["set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);"]


def test_the_sample_rewrite_has_no_barrier_between_its_final_divides(capsys, tmp_path):
    """The same chain inside the whole cluster sample's rewrite."""
    out = tmp_path / "flash_attention.manual.cpp"
    status, _, err = run(capsys, "auto2manual", SAMPLES / "flash_attention" / "auto.cpp", "-o", out)
    assert status == 0, err
    gap = between(out.read_text(), "TROWEXPANDDIV(oLeft, oLeft, runSum, tmpLeft);",
                  "TROWEXPANDDIV(oRight, oRight, runSum, tmpRight);")
    assert not [line for line in gap if line.startswith("pipe_barrier")], gap
    status, report, err = run(capsys, "check", "--arch", "a2a3", out)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in report, err
