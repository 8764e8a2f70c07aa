"""While loops (tests/kernels/lang/while_loops.cpp): a general loop over a counter of its own,
run as C runs it with the values given; a loop whose iterations stop changing anything (a poll
of memory another rank writes) is checked for two iterations standing for any number, with a
located warning. auto2manual refuses them with their location."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from ptorewrite.analysis import execution, ir
from ptorewrite.arch import profile
from ptorewrite.cli import main as cli_main
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

KERNEL = Path(__file__).resolve().parent / "kernels" / "lang" / "while_loops.cpp"
POLL_WARNING = "this while loop's iterations change nothing the model sees"


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(KERNEL.read_text().splitlines(), 1) if text in line)


def run(**values) -> execution.Trace:
    k = load_kernel(str(KERNEL), FrontendOptions(auto_mode=False))
    return execution.unroll(k, profile(k.arch), {"block_idx": 0, "block_num": 1, **values}, require_semantics=False)


def test_a_while_loop_is_a_general_loop_of_its_own_counter():
    k = load_kernel(str(KERNEL), FrontendOptions(auto_mode=False))
    loops = [s for s in ir.walk(k.body) if isinstance(s, ir.For)]
    assert [(s.kind, s.counted, s.loc.line) for s in loops] == [("while", False, line_of("while (taken < want)")),
                                                               ("while", False, line_of("while (*flag == 0)")),
                                                               ("while", False, line_of("while (true)"))]
    assert str(loops[2].cond).startswith("(broken#") and str(loops[2].cond).endswith(" == 0)")  # `true` folded away
    assert str(loops[0].cond) == "(taken < want)" and loops[0].trip_count() is None


@pytest.mark.parametrize("want, ready, stores", [(3, 3, 3), (0, 3, 0), (1, 5, 1)])
def test_the_condition_sees_the_body_s_assignments(want, ready, stores):
    trace = run(want=want, **{"*ready": ready, "*flag": 1})
    assert sum(1 for s in trace.steps if s.kind == "op" and s.name == "TSTORE") == stores
    assert not any(POLL_WARNING in w.message for w in trace.warnings)


@pytest.mark.parametrize("values", [{"want": 2, "*ready": 0, "*flag": 1}, {"want": 0, "*ready": 0, "*flag": 0}])
def test_a_loop_that_changes_nothing_runs_twice_with_a_located_warning(values):
    trace = run(**values)
    warned = [w for w in trace.warnings if POLL_WARNING in w.message]
    assert len(warned) == 1
    line = line_of("while (taken < want)") if values["want"] else line_of("while (*flag == 0)")
    assert warned[0].loc.line == line
    if not values["want"]:  # the poll's body, a barrier, is issued for two iterations
        assert sum(1 for s in trace.steps if s.kind == "barrier") == 2


@pytest.mark.parametrize("want, barriers", [(0, 0), (1, 0), (3, 2)])
def test_a_break_leaves_the_loop_without_testing_its_condition(want, barriers):
    trace = run(want=want, **{"*ready": want, "*flag": 1})
    assert sum(1 for s in trace.steps if s.kind == "barrier" and s.pipe == "V") == barriers
    assert not any(POLL_WARNING in w.message for w in trace.warnings)


def test_check_runs_it_and_finds_the_race_of_the_racy_version(capsys):
    args = ["--set", "want=3", "--set", "*ready=3", "--set", "*flag=0", str(KERNEL)]
    assert cli_main(["check", *args]) == 0
    captured = capsys.readouterr()
    assert "0 race(s), 0 flag problem(s) (9 instructions" in captured.out
    assert f"{line_of('while (*flag == 0)')}:5: warning: {POLL_WARNING}" in captured.err
    assert cli_main(["check", "-D", "RACY", *args]) == 1
    err = capsys.readouterr().err
    assert f"{line_of('TSTORE(dst, y);')}:13: error: data race (RAW) on UB bytes [0x4000, 0x5000): TSTORE [MTE3] " \
           "reads y while TADDS [V]" in err


def test_auto2manual_refuses_a_while_loop_with_its_location(capsys, tmp_path):
    auto = tmp_path / "auto_while.cpp"
    lines = [line for line in KERNEL.read_text().splitlines()
             if not any(w in line for w in ("flag(", "TASSIGN", "pipe_barrier"))]
    auto.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.cpp"
    assert cli_main(["auto2manual", str(auto), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    line = next(i for i, text in enumerate(lines, 1) if "while (taken < want)" in text)
    assert f"{auto}:{line}:5: error: a while loop is not supported by auto2manual" in err and not out.exists()
