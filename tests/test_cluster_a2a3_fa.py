"""`check` on an a2a3 flash-attention-shaped cluster kernel (three GM rings used through
GlobalTensors inside helpers, L0C unit flags): clean as written, and each of its synchronizations,
deleted alone, is reported at its own line or at the lines it pairs with."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from ptorewrite.cli import main

KERNEL = Path(__file__).parent / "kernels" / "cluster" / "a2a3_fa_rings.cpp"
SYNC = re.compile(r"^\s*(set_flag|wait_flag|pipe_barrier|TALLOC|TPUSH|TPOP|TFREE)\b")
FLAG = re.compile(r"\b(?:set|wait)_flag\((PIPE_\w+),\s*(PIPE_\w+),\s*(\w+)\)")
# A ring step, a helper that runs one, or a use of the GlobalTensor a step points at a slot.
FIFO = re.compile(r"\b(TALLOC|TPUSH|TPOP|TFREE)<|\bTPipe<|\b(hand_to_vectors|take_half)<|\b[sop]?(Slot|Part|slot|part)\)")
LINES = KERNEL.read_text().splitlines(True)
SYNC_LINES = [n for n, line in enumerate(LINES, 1) if SYNC.match(line)]


@pytest.fixture(autouse=True)
def _preambles_beside_copies(tmp_path):
    """The cluster kernels include "cluster_preambles.hpp" from their own folder: an edited copy a
    test writes into tmp_path finds it beside it there too."""
    shutil.copy(KERNEL.parent / "cluster_preambles.hpp", tmp_path)


def run(capsys, path: Path) -> tuple[int, str]:
    status = main(["check", "--arch", "a2a3", str(path)])
    _, err = capsys.readouterr()
    return status, err


def related_lines(n: int) -> set[int]:
    """Where a deletion of line n is rightly reported: next to it (the instructions it ordered),
    at the other ends of its flag, or, for a FIFO step, at the ring's other steps, the helpers
    that run them, the uses of the slots they bind and the pipes' declarations (their
    destructors take the last credits)."""
    near = set(range(n - 3, n + 4))
    m = FLAG.search(LINES[n - 1])
    if m:
        return near | {k for k, line in enumerate(LINES, 1) if (f := FLAG.search(line)) and f.groups() == m.groups()}
    if FIFO.search(LINES[n - 1]):
        return near | {k for k, line in enumerate(LINES, 1) if FIFO.search(line) or re.search(r"Pipe \w+\(", line)}
    return near


def test_the_kernel_is_clean(capsys):
    status, err = run(capsys, KERNEL)
    assert status == 0, err


def test_every_sync_line_is_counted():
    # 3 ring steps in the helpers; the cube core's 22 flags and 2 ring steps; the vector cores' 20
    # flags, 1 barrier and 4 ring steps.
    assert len(SYNC_LINES) == 52


@pytest.mark.parametrize("line", SYNC_LINES)
def test_a_deleted_sync_is_reported_at_its_lines(capsys, tmp_path, line):
    path = tmp_path / KERNEL.name
    path.write_text("".join(LINES[:line - 1] + ["\n"] + LINES[line:]))  # the other lines keep their numbers
    status, err = run(capsys, path)
    assert status in (1, 2), f"deleting line {line} ({LINES[line - 1].strip()}) is not reported"
    reported = {int(m.group(1)) for m in re.finditer(rf"{re.escape(str(path))}:(\d+):\d+: error:", err)}
    assert reported & related_lines(line), (line, LINES[line - 1].strip(), sorted(reported))


@pytest.mark.parametrize("phase, written, reported, message", [
    # Without its phase the matmul publishes nothing: nothing orders the store after it.
    ("TMATMUL_ACC<AccPhase::Final>(oAcc", "TMATMUL_ACC(oAcc", "TSTORE<STPhase::Final>(slot, acc);",
     "data race (RAW) on cube:L0C bytes [0x1000, 0x2000): TSTORE [cube.FIX] reads acc while TMATMUL_ACC [cube.M]"),
    # A store without its phase does not read the result out: the next matmul's check waits forever.
    ("TSTORE<STPhase::Final>(slot, acc)", "TSTORE(slot, acc)", "TMATMUL<AccPhase::Final>(sAcc, left, right);",
     "this matmul's unit-flag check waits until the accumulator at L0C byte 0x0 is read out"),
])
def test_unit_flags_order_matmul_and_store(capsys, tmp_path, phase, written, reported, message):
    text = KERNEL.read_text()
    assert phase in text
    path = tmp_path / KERNEL.name
    path.write_text(text.replace(phase, written, 1))
    status, err = run(capsys, path)
    line = next(n for n, x in enumerate(LINES, 1) if reported in x)
    assert status == 1
    assert f"{path}:{line}:" in err and message in err


def test_without_unit_flags_the_accumulator_needs_flags(capsys, tmp_path):
    """No phase on either end: nothing orders PIPE_M and PIPE_FIX on the accumulator, which is a race."""
    text = KERNEL.read_text()
    for a, b in (("TMATMUL<AccPhase::Final>", "TMATMUL"), ("TMATMUL<AccPhase::Partial>", "TMATMUL"),
                 ("TMATMUL_ACC<AccPhase::Final>", "TMATMUL_ACC"), ("TSTORE<STPhase::Final>", "TSTORE")):
        text = text.replace(a, b)
    path = tmp_path / KERNEL.name
    path.write_text(text)
    status, err = run(capsys, path)
    assert status == 1
    assert "data race (RAW) on cube:L0C" in err and "TSTORE [cube.FIX] reads acc while TMATMUL" in err


ROUNDS = Path(__file__).parent / "kernels" / "cluster" / "a2a3_fifo_rounds.cpp"


def test_a_pipe_built_in_each_call_of_a_helper_is_destroyed_at_each_call(capsys):
    """The destructor of a TPipe a helper builds runs when the helper returns: the cube core waits
    there for the free signal its pushes did not take, so the next call's pipe does not overwrite a
    slot a vector core still loads (and no free signal is left over at the end)."""
    status, err = run(capsys, ROUNDS)
    assert status == 0, err
    assert "warning" not in err


def test_a_pipe_destructor_missing_its_free_signal_is_reported(capsys, tmp_path):
    """Without the vector cores' TFREE the destructor's wait at the end of the first call hangs, and
    it is reported at the pipe's declaration in the helper."""
    text = ROUNDS.read_text()
    lines = text.splitlines(True)
    n = next(k for k, x in enumerate(lines, 1) if "TFREE<" in x)
    path = tmp_path / ROUNDS.name
    path.write_text("".join(lines[:n - 1] + ["\n"] + lines[n:]))
    status, err = run(capsys, path)
    decl = next(k for k, x in enumerate(lines, 1) if "Fifo fifo(" in x)
    assert status == 1
    assert f"{path}:{decl}:" in err and "wait_flag_dev(3) on cube is never satisfied" in err
