"""The cluster sample samples/flash_attention: its hand-written twin is clean under `check` with the
cube core and both vector cores running together, every one of its syncs is needed (each deleted
in turn is reported at the line it guarded), and its AUTO kernel is the twin's tile program."""

from __future__ import annotations

import re

import pytest
from _samples import SAMPLES, is_cluster_sample, sample_names

from ptorewrite.cli import main

FA = SAMPLES / "flash_attention"
MANUAL = FA / "manual.cpp"
DEFAULT = "FlashAttentionKernel<128, 128, 1024, 128, 2>"
SMALL = "FlashAttentionKernel<32, 32, 256, 64, 1>"
SYNC = re.compile(r"\s*(set_flag|wait_flag|pipe_barrier)\((PIPE_\w+)(?:, (PIPE_\w+))?")


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_sample_is_a_cluster_sample_and_the_only_one():
    assert is_cluster_sample(FA)
    assert sample_names(cluster=True) == ["flash_attention"]
    assert "flash_attention" not in sample_names()


@pytest.mark.parametrize("entry", [DEFAULT, SMALL])
def test_the_twin_is_clean_with_every_core_running(capsys, entry):
    status, out, err = run(capsys, "check", "--arch", "a2a3", MANUAL, "--entry", entry)
    assert status == 0 and not err, err
    assert "(cluster: cube, vec0, vec1 run together): 0 race(s), 0 flag problem(s)" in out


@pytest.mark.parametrize("define", ["-DFA_S1=128", "-DFA_PRELOAD=1", "-DFA_PRELOAD=4", "-DFA_S1=512"])
def test_the_twin_is_clean_at_other_lengths_and_preload_depths(capsys, define):
    value = define.split("=")[1]
    entry = DEFAULT.replace("1024", value) if "S1" in define else DEFAULT.replace(", 2>", f", {value}>")
    status, out, err = run(capsys, "check", "--arch", "a2a3", MANUAL, define, "--entry", entry)
    assert status == 0 and not err, err
    assert "(cluster: cube, vec0, vec1 run together): 0 race(s), 0 flag problem(s)" in out


def _code(text: str) -> list[str]:
    """The lines of a kernel without comments, blank lines and the constants that only place tiles."""
    lines = []
    for line in text.splitlines():
        line = re.sub(r"\s*//.*", "", line).rstrip()
        if not line.strip() or re.match(r"\s*constexpr uint32_t (UB_|L1_|ROW_BYTES)", line) \
                or re.match(r"\s*static_assert\((UB_|L1_)", line):
            continue
        lines.append(line)
    return lines


def test_the_auto_kernel_is_the_twin_without_placement_and_syncs(capsys, tmp_path):
    out = tmp_path / "stripped.cpp"
    status, _, err = run(capsys, "manual2auto", MANUAL, "-o", out)
    assert status == 0, err
    assert _code(out.read_text()) == _code((FA / "auto.cpp").read_text())


def _sync_lines() -> list[int]:
    return [n for n, line in enumerate(MANUAL.read_text().splitlines(), 1) if SYNC.match(line)]


def _next_statement(lines: list[str], n: int) -> int:
    """The line of the first statement after line n (braces alone are not statements)."""
    m = n + 1
    while lines[m - 1].strip() in ("", "{", "}"):
        m += 1
    return m


@pytest.mark.parametrize("deleted", _sync_lines())
def test_every_sync_of_the_twin_deleted_is_reported_at_its_line(capsys, tmp_path, deleted):
    text = MANUAL.read_text()
    lines = text.splitlines(True)
    path = tmp_path / "manual.cpp"
    path.write_text("".join(lines[:deleted - 1] + ["\n"] + lines[deleted:]))  # the other lines keep their numbers
    status, _, err = run(capsys, "check", "--arch", "a2a3", path, "--entry", SMALL)
    kind, src, dst = SYNC.match(lines[deleted - 1]).groups()
    if kind == "pipe_barrier" and status == 0:
        # A barrier pto-isa's implementation already issues: right after a row reduction, or right
        # before a row broadcast of a column (which drains the vector pipe before computing).
        before = [ln.strip() for ln in lines[:deleted - 1] if re.match(r"\s*T[A-Z]+\(", ln)][-1]
        after = lines[_next_statement(text.splitlines(), deleted) - 1].strip()
        after = lines[_next_statement(text.splitlines(), deleted + 1) - 1].strip() if after == "}" else after
        assert re.match(r"TROW(SUM|MAX|MIN)\(", before) or re.match(r"TROWEXPAND(MUL|DIV|SUB|ADD)\(", after), \
            (before, after)
        return
    assert status == 1
    first = next(line for line in err.splitlines() if ": error: " in line)
    at = int(first.split(":")[1])
    if kind == "pipe_barrier":
        # Two vector instructions it separated now race; the later one is reported, before the next
        # barrier (a row broadcast's own barrier may order the first of them).
        nxt = next(n for n in range(deleted + 1, len(lines) + 1) if "pipe_barrier" in lines[n - 1])
        assert "data race" in first and _next_statement(text.splitlines(), deleted) <= at < nxt, first
    else:
        # A set deleted leaves its wait hanging; a wait deleted leaves its set raised, or the next set
        # of the same flag finds it still raised.
        partner = "wait_flag" if kind == "set_flag" else "set_flag"
        assert "deadlock" in first, first
        assert re.match(rf"\s*{partner}\({src}, {dst},", lines[at - 1]), (first, lines[at - 1])


PUSH = re.compile(r"\s*TPUSH<(\w+),.*>\((\w+), \w+\);")


def _push_lines() -> list[int]:
    return [n for n, line in enumerate(MANUAL.read_text().splitlines(), 1) if PUSH.match(line)]


@pytest.mark.parametrize("deleted", _push_lines())
def test_a_push_deleted_hangs_the_pop_of_its_ring_on_the_other_core(capsys, tmp_path, deleted):
    # The ring's "filled" signal is raised by the push alone: without it, the consumer's pop of the
    # same ring waits for ever (the cross-core wait, reported at the pop).
    text = MANUAL.read_text()
    lines = text.splitlines(True)
    path = tmp_path / "manual.cpp"
    path.write_text("".join(lines[:deleted - 1] + ["\n"] + lines[deleted:]))
    status, _, err = run(capsys, "check", "--arch", "a2a3", path, "--entry", SMALL)
    assert status == 1
    first = next(line for line in err.splitlines() if ": error: " in line)
    at = int(first.split(":")[1])
    ring = PUSH.match(lines[deleted - 1]).group(2)
    assert "deadlock: wait_flag_dev(" in first and "is never satisfied" in first, first
    assert re.match(rf"\s*TPOP<\w+, \w+, TileSplitAxis::\w+>\({ring}, \w+\);", lines[at - 1]), lines[at - 1]
