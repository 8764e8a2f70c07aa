"""A lane loop's copies and a tile after it in each step, laid on the same bytes
(`transform.shared_region`): the memory report names the pair and the plan it keeps, the rewrite
checks and verifies for every trip count, and the one-index form (one counter over both
declarations, one flag per copy) is checked and verified beside it as the form to reach.

To regenerate the expected rewrite (review the diff):
    python -m ptorewrite.cli auto2manual tests/kernels/shared_region/lanes_then_update.cpp \
        --capacity UB=12K -o tests/kernels/shared_region/lanes_then_update.manual.cpp
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from ptorewrite.cli import main

HERE = Path(__file__).resolve().parent / "kernels" / "shared_region"
AUTO = HERE / "lanes_then_update.cpp"
EXPECTED = HERE / "lanes_then_update.manual.cpp"
TARGET = HERE / "lanes_then_update.target.cpp"


def test_the_report_names_the_update_laid_over_the_lane_copies(capsys, tmp_path):
    assert main(["auto2manual", str(AUTO), "--capacity", "UB=12K", "--check", str(EXPECTED)]) == 0
    capsys.readouterr()
    assert main(["auto2manual", str(AUTO), "--capacity", "UB=12K", "-o", str(tmp_path / "out.cpp"),
                 "--memory-report"]) == 0
    out = capsys.readouterr().out
    assert "shared regions (a lane loop's copies and a tile after it in each step):" in out
    assert ("  upd over slice[2]'s copies 0 and 1 (UB 0x0-0x1fff) after its lane loop, in the loop at 26:5: "
            "each keeps its own index (slice's copy its lane, upd's copy the step modulo 2)") in out


def test_no_shared_region_when_the_update_has_bytes_of_its_own(capsys, tmp_path):
    assert main(["auto2manual", str(AUTO), "-o", str(tmp_path / "out.cpp"), "--memory-report"]) == 0
    assert "shared regions" not in capsys.readouterr().out


@pytest.mark.parametrize("blocks", ["0", "1", "3"])
def test_the_rewrite_checks_and_verifies_for_every_trip_count(capsys, blocks):
    assert main(["check", str(EXPECTED), "--set", f"blocks={blocks}"]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", str(AUTO), str(EXPECTED), "--set", f"blocks={blocks}"]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


@pytest.mark.parametrize("lanes,blocks", [("1", "1"), ("3", "0"), ("3", "1"), ("4", "1"), ("4", "3"), ("5", "2")])
def test_one_index_over_both_declarations_is_sound(capsys, lanes, blocks):
    # Odd and even lane counts (the update's copy then stays or alternates), the loop not run,
    # run once and more.
    assert main(["verify", "-D", f"LANES={lanes}", str(AUTO), str(TARGET), "--set", f"blocks={blocks}"]) == 0
    out = capsys.readouterr().out
    assert "outputs equivalent" in out and "0 race(s), 0 flag problem(s)" in out


def _cycles(capsys, path: Path, blocks: str) -> int:
    assert main(["simulate", str(path), "--set", f"blocks={blocks}"]) == 0
    return int(re.search(r"([0-9,]+) cycles", capsys.readouterr().out).group(1).replace(",", ""))


def test_one_index_lets_the_next_steps_first_lane_load_during_the_update(capsys):
    # Today's plan: the next step's first lane loads into the copy this step's update reads and
    # waits for it (one V -> MTE2 id before the lane loop). One index: that lane takes the other copy.
    assert _cycles(capsys, TARGET, "3") < _cycles(capsys, EXPECTED, "3")
