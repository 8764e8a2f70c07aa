"""Bad input: exit status 2, one clear (located where possible) message, nothing written, no
traceback. Unexpected internal errors: exit status 3 and one line. Timings of the same cases are
in benchmarks/bad_input.md."""

from __future__ import annotations

import os
import re

import pytest
from _bad_inputs import NAMES, cases, kernel, snapshot

from ptorewrite.cli import main


def run(capsys, argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("name", NAMES)
def test_bad_input_is_refused_cleanly(capsys, tmp_path, name):
    case = next(c for c in cases(tmp_path) if c.name == name)
    before = snapshot(case.watch)
    status, out, err = run(capsys, case.argv)
    assert status == 2, (case.name, err)
    assert re.search(case.message, err.splitlines()[0]), (case.name, err)
    assert "Traceback" not in err and not out
    assert snapshot(case.watch) == before, f"{case.name}: something was written"


def test_the_case_list_is_complete(tmp_path):
    assert tuple(c.name for c in cases(tmp_path)) == NAMES


def test_unreadable_input(capsys, tmp_path, monkeypatch):
    src = tmp_path / "k.cpp"
    src.write_text(kernel())
    real_open = os.open

    def deny(path, *a, **kw):
        if str(path) == str(src):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **kw)

    monkeypatch.setattr(os, "open", deny)
    before = snapshot(tmp_path)
    status, out, err = run(capsys, ["auto2manual", src, "-o", tmp_path / "out.cpp"])
    assert status == 2 and err.startswith(f"ptorewrite: error: cannot read {src}: Permission denied")
    assert not out and snapshot(tmp_path) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_input_by_mode(capsys, tmp_path):
    src = tmp_path / "k.cpp"
    src.write_text(kernel())
    src.chmod(0)
    status, _, err = run(capsys, ["check", src])
    assert status == 2 and f"cannot read {src}: Permission denied" in err


def test_output_equal_to_the_input_is_fine_with_i(capsys, tmp_path):
    src = tmp_path / "k.cpp"
    src.write_text(kernel())
    assert run(capsys, ["auto2manual", src, "-i"])[0] == 0
    assert "TASSIGN(x, 0x0);" in src.read_text()


def test_same_define_twice_is_fine(capsys, tmp_path):
    src = tmp_path / "k.cpp"
    src.write_text(kernel())
    status, out, _ = run(capsys, ["auto2manual", src, "-D", "ROWS_A=1", "-D", "ROWS_A=1", "-D", "COLS_A",
                                       "-D", "COLS_A=1"])
    assert status == 0 and "TASSIGN" in out


def test_nesting_up_to_the_limit_is_analysed(capsys, tmp_path):
    src = tmp_path / "k.cpp"
    loops = "".join(f"    for (int i{d} = 0; i{d} < 1; ++i{d})\n" for d in range(60))
    src.write_text(kernel(loops + "    TADDS(x, x, 1.0f);"))
    status, _, err = run(capsys, ["verify", src])
    assert status == 0, err


def test_internal_errors_are_one_line_with_status_3(capsys, tmp_path, monkeypatch):
    src = tmp_path / "k.cpp"
    src.write_text(kernel())

    def boom(*a, **kw):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("ptorewrite.transform.rewrite.plan_memory", boom)
    status, out, err = run(capsys, ["auto2manual", src, "-o", tmp_path / "out.cpp"])
    assert status == 3 and not out
    assert err == ("ptorewrite: internal error: ZeroDivisionError: division by zero (a bug in ptorewrite; please "
                   "report it with the input that caused it)\n")
    assert not (tmp_path / "out.cpp").exists()


def test_recursion_is_a_clean_error(capsys, tmp_path, monkeypatch):
    """Kernels deeper than inputs.MAX_NESTING are refused before any recursion; should a recursion
    still run out of stack, the message is one line."""
    src = tmp_path / "k.cpp"
    src.write_text(kernel())

    def recurse(*a, **kw):
        return recurse()

    monkeypatch.setattr("ptorewrite.transform.rewrite.plan_memory", recurse)
    status, _, err = run(capsys, ["auto2manual", src])
    assert status == 2 and err.startswith("ptorewrite: error: the kernel nests too deeply") and "Traceback" not in err


def test_a_big_loop_is_not_refused_when_read(capsys, tmp_path):
    """How much a kernel executes is bounded by the executions' instance limit, not judged when
    the kernel is read: `ir` prints a 10^9-trip loop, and `auto2manual` does not refuse it for its
    size at load (its analysis may still stop at the instance limit, with that limit's message)."""
    src = tmp_path / "long_loop.cpp"
    src.write_text(kernel("    for (int i = 0; i < 1000000000; ++i) {\n        TADDS(x, x, 1.0f);\n    }"))
    status, out, err = run(capsys, ["ir", src])
    assert status == 0 and not err
    assert "for i = 0; i < 1000000000; i += 1:  (trips 1000000000)  @11:5" in out
    status, out, err = run(capsys, ["auto2manual", src])
    assert status == 0 or (status == 2 and re.match(
        rf"{re.escape(str(src))}:11:5: error: this run would execute at least [\d,]+ instances \(instructions, "
        r"syncs and loop iterations\), more than the limit of 2,000,000;", err)), err
