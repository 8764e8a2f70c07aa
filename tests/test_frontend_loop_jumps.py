"""`continue` and `break` in for loops (tests/kernels/lang/loop_jumps.cpp): a flag per loop that
the jump sets and the rest of the body tests; a broken loop's remaining iterations issue nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptorewrite.analysis import execution, ir
from ptorewrite.arch import profile
from ptorewrite.cli import main as cli_main
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

KERNEL = Path(__file__).resolve().parent / "kernels" / "lang" / "loop_jumps.cpp"


def stored_rows(k: ir.Kernel, **values) -> list[int]:
    trace = execution.unroll(k, profile(k.arch), {"block_idx": 0, "block_num": 1, **values},
                             require_semantics=False)
    return [s.operands[0].offset // 256 for s in trace.steps if s.kind == "op" and s.name == "TSTORE"]


@pytest.mark.parametrize("skip, limit, rows", [
    (3, 100, [1, 2, 4, 5, 7]),  # continue only
    (2, 2, [1, 3]),  # continue, then break after the second row
    (9, 1, [1]),
    (1, 5, []),  # every row skipped: the break is never reached
])
def test_continue_skips_the_rest_of_the_body_and_break_the_remaining_iterations(skip, limit, rows):
    k = load_kernel(str(KERNEL), FrontendOptions(auto_mode=False))
    assert stored_rows(k, skip=skip, limit=limit) == rows


def test_jump_outside_a_loop_is_refused(capsys, tmp_path):
    bad = tmp_path / "stray_break.cpp"
    text = KERNEL.read_text()
    bad.write_text(text.replace("    int32_t copied = 0;\n", "    int32_t copied = 0;\n    if (skip == 0) {\n"
                                "        break;\n    }\n", 1))
    rc = cli_main(["check", str(bad), "--set", "skip=2", "--set", "limit=1"])
    err = capsys.readouterr().err
    assert rc == 2 and f"{bad}:16:9: error:" in err, err


def test_auto_kernel_with_jumps_rewrites_and_verifies(capsys, tmp_path):
    auto = tmp_path / "jumps_auto.cpp"
    auto.write_text("".join(ln for ln in KERNEL.read_text().splitlines(keepends=True)
                            if not any(w in ln for w in ("set_flag", "wait_flag", "TASSIGN"))))
    manual = tmp_path / "jumps_manual.cpp"
    assert cli_main(["auto2manual", str(auto), "-o", str(manual)]) == 0
    for skip, limit in ((2, 3), (1, 1), (5, 100)):
        rc = cli_main(["verify", str(auto), str(manual), "--set", f"skip={skip}", "--set", f"limit={limit}"])
        out = capsys.readouterr().out
        assert rc == 0 and "outputs equivalent" in out and "0 race(s), 0 flag problem(s)" in out, out
