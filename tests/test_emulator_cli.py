"""`ptorewrite check / simulate / verify`: outputs and exit statuses (0 clean, 1 problems, 2 bad input)."""

from __future__ import annotations

import pytest
from _emulator_util import SAMPLES, blank_lines

from ptorewrite.cli import main


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_check(capsys, tmp_path):
    status, out, err = run(capsys, "check", SAMPLES / "softmax" / "manual.cpp")
    assert status == 0 and "0 race(s), 0 flag problem(s)" in out and not err
    broken = tmp_path / "softmax.cpp"
    text = (SAMPLES / "softmax" / "manual.cpp").read_text()
    barrier = next(n for n, line in enumerate(text.splitlines(), 1) if "// TEXP reads y[slot] in place" in line)
    broken.write_text(blank_lines(text, [barrier]))  # the TEXP on the next line rewrites y[slot] in place
    status, out, err = run(capsys, "check", broken)
    assert status == 1
    assert f"{broken}:{barrier + 1}:9: error: data race (" in err and "needs pipe_barrier(PIPE_V)" in err
    status, _, err = run(capsys, "check", SAMPLES / "softmax" / "auto.cpp")
    assert status == 2 and "AUTO-mode kernel" in err
    status, _, err = run(capsys, "check", tmp_path / "missing.cpp")
    assert status == 2


def test_check_runtime_values(capsys, tmp_path):
    from test_execution import SCALED

    assert run(capsys, "check", SAMPLES / "vec_add" / "manual.cpp", "--block-idx", "3", "--block-num", "4")[0] == 0
    src = tmp_path / "k.cpp"
    src.write_text(SCALED)
    # `n` steers the loop and must be given; `scale` only feeds TMULS's data and is not needed.
    status, _, err = run(capsys, "check", src)
    assert status == 2 and "runtime value(s) n " in err and "scale" not in err
    status, out, _ = run(capsys, "check", src, "--set", "n=2")
    assert status == 0 and "8 instructions" in out
    status, out, _ = run(capsys, "check", src, "--set", "n=2", "--set", "scale=0.5")
    assert status == 0 and "8 instructions" in out


def test_simulate(capsys, tmp_path):
    svg = tmp_path / "t.svg"
    status, out, _ = run(capsys, "simulate", SAMPLES / "gemm_double" / "manual.cpp", "-DGEMM_M=128", "-DGEMM_K=64",
                         "-DGEMM_N=256", "--timeline", svg)
    assert status == 0 and "3,032 cycles" in out and "critical path" in out and "busy cycles per pipe" in out
    assert svg.read_text().startswith("<svg")
    status, out, err = run(capsys, "simulate", SAMPLES / "vec_add" / "auto.cpp")
    assert status == 0 and "fully serialized" in out and "serialized" in err
    status, out, _ = run(capsys, "simulate", SAMPLES / "vec_add" / "manual.cpp", "--serialize")
    assert status == 0 and "fully serialized" in out


def test_verify(capsys, tmp_path):
    status, out, _ = run(capsys, "verify", SAMPLES / "rmsnorm" / "auto.cpp", SAMPLES / "rmsnorm" / "manual.cpp",
                         "--seed", "7")
    assert status == 0 and "outputs equivalent" in out and "0 race(s)" in out
    wrong = tmp_path / "rmsnorm.cpp"
    wrong.write_text((SAMPLES / "rmsnorm" / "manual.cpp").read_text().replace("TMULS(meanSq, meanSq, invCols)",
                                                                              "TMULS(meanSq, meanSq, 0.5f)"))
    status, out, _ = run(capsys, "verify", SAMPLES / "rmsnorm" / "auto.cpp", wrong)
    assert status == 1 and "NOT equivalent" in out and "mismatch: out:" in out
    status, _, err = run(capsys, "verify", SAMPLES / "rmsnorm" / "manual.cpp", wrong)
    assert status == 2 and "AUTO kernel first" in err


def test_verify_rewrites_when_no_manual_kernel_is_given(capsys):
    pytest.importorskip("ptorewrite.transform.rewrite")
    status, out, _ = run(capsys, "verify", SAMPLES / "vec_add" / "auto.cpp")
    assert status == 0 and "vs the rewrite: outputs equivalent" in out


PAST_UB = SAMPLES.parent / "tests" / "kernels" / "placement" / "past_ub.cpp"


def test_check_reports_a_tile_past_its_buffer_and_goes_on(capsys, tmp_path):
    """A manual TASSIGN past the end of UB is a finding of the kernel (exit 1, not a refusal), and
    the races of the rest of the kernel are still reported."""
    text = PAST_UB.read_text()
    status, out, err = run(capsys, "check", PAST_UB)
    assert status == 1
    assert (f"{PAST_UB}:21:5: error: TASSIGN places 'spill' (32768 B) at 0x2c000, ending at 0x34000, "
            "outside UB (196608 B)") in err
    assert f"{PAST_UB}:31:5: error: data race (RAW) on UB bytes [0x8000, 0x10000): TSTORE [MTE3] reads sum" in err
    assert "1 misplaced tile(s), 1 race(s), 0 flag problem(s)" in out
    # The TSTORE ordered after the TADDs: the misplacement alone still fails the check.
    ordered = tmp_path / "ordered.cpp"
    ordered.write_text(text.replace("    TSTORE(gOut, sum);", "    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);\n"
                                    "    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);\n    TSTORE(gOut, sum);"))
    status, out, err = run(capsys, "check", ordered)
    assert status == 1 and "1 misplaced tile(s), 0 race(s)" in out and "outside UB" in err
    fixed = tmp_path / "fixed.cpp"
    fixed.write_text(ordered.read_text().replace("TASSIGN(spill, 0x2C000)", "TASSIGN(spill, 0x10000)"))
    status, out, err = run(capsys, "check", fixed)
    assert status == 0 and "misplaced" not in out and not err
    # A misaligned address, and one computed at run time (found by the execution), the same way.
    misaligned = tmp_path / "misaligned.cpp"
    misaligned.write_text(ordered.read_text().replace("TASSIGN(spill, 0x2C000)", "TASSIGN(spill, 0x10010)"))
    status, out, err = run(capsys, "check", misaligned)
    assert status == 1 and "at 0x10010, which is not a multiple of 32" in err
    computed = tmp_path / "computed.cpp"
    computed.write_text(ordered.read_text().replace("    TASSIGN(spill, 0x2C000);",
                                                    "    for (int k = 0; k < 2; ++k) {\n"
                                                    "        TASSIGN(spill, 0x1C000 + k * 0x10000);\n    }"))
    status, out, err = run(capsys, "check", computed)
    assert status == 1 and f"{computed}:22:9: error: TASSIGN places 'spill' (32768 B) at 0x2c000" in err
    assert "past the end of UB (196608 B)" in err and "1 misplaced tile(s), 0 race(s)" in out
    # The other commands still refuse it.
    status, _, err = run(capsys, "simulate", PAST_UB)
    assert status == 2 and "outside UB" in err
