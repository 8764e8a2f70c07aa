"""Seeded bugs: delete syncs from every sample's manual twin and expect the checker to notice.

* Deleting a set_flag line together with its wait_flag line(s) (same src, dst and event text)
  removes an ordering edge: a race must be reported between an instruction of the source pipe
  and the first instruction of the destination pipe after the deleted wait ("needs P -> Q").
  Exception, decided from the unmodified kernel rather than by hand: when no deleted set was
  matched with a deleted wait (a priming set and a draining wait, matched to the loop's waits and
  sets), the edge itself survives and the deletion only unbalances the flag: a deadlock.
* Deleting one pipe_barrier line: a race between the vector instructions around it.
* Deleting one half of a pair: a deadlock on that flag.

No flag of the twins turned out to be redundant (every deletion is detected), so nothing is
excluded; REDUNDANT would list (sample, line) pairs whose deletion is provably harmless. Three
barriers are: each follows an a2a3 float row reduction, whose pto-isa implementation ends with a
pipe_barrier(PIPE_V) of its own (IMPLIED); deleting one must leave the kernel clean.
"""

from __future__ import annotations

import pytest
from _emulator_util import (
    SAMPLE_NAMES,
    SAMPLES,
    barrier_lines,
    blank_lines,
    check_text,
    kernel_line,
    sample,
    sync_lines,
    trace_of,
)

from ptorewrite.analysis import ir
from ptorewrite.emulator import pipes

REDUNDANT: set[tuple[str, int]] = set()  # none found in the twins
# pipe_barrier(PIPE_V) lines right after a TROWMAX / TROWSUM, which drains the vector pipe itself.
IMPLIED: set[tuple[str, int]] = {("softmax", 75), ("softmax", 83), ("rmsnorm", 44)}


def _original(name):
    kernel = sample(name, "manual")
    trace = trace_of(kernel)
    matches, _ = pipes.match_flags(trace)
    return kernel, trace, matches


ORIGINALS = {}


def original(name):
    if name not in ORIGINALS:
        ORIGINALS[name] = _original(name)
    return ORIGINALS[name]


def _sync_stmt(kernel, line):
    return next(s for s in ir.walk(kernel.body) if isinstance(s, ir.Sync) and s.loc.line == line)


def _instr_lines(kernel, context, pipe):
    """Lines (in the function of `context`) of the instructions of `pipe` called from that function."""
    depth = len(context.via)
    return sorted({kernel_line(s, depth) for s in kernel.instructions()
                   if s.pipe == pipe and s.via[:depth] == context.via[:depth]})


def _pairs(name):
    text = (SAMPLES / name / "manual.cpp").read_text()
    syncs = sync_lines(text)
    for line, kind, src, dst, ev in syncs:
        if kind == "set_flag":
            waits = [w for w, k, s, d, e in syncs if k == "wait_flag" and (s, d, e) == (src, dst, ev)]
            yield name, line, tuple(waits), src[5:], dst[5:]


PAIRS = [p for n in SAMPLE_NAMES for p in _pairs(n)]


@pytest.mark.parametrize("name,set_line,wait_lines,src,dst", PAIRS,
                         ids=[f"{p[0]}-set{p[1]}" for p in PAIRS])
def test_deleting_a_pair(name, set_line, wait_lines, src, dst, tmp_path):
    kernel, trace, matches = original(name)
    deleted = {set_line, *wait_lines}
    guards_edge = any(trace.steps[s].loc.line in deleted and trace.steps[w].loc.line in deleted
                      for w, s in matches.items())
    text = blank_lines((SAMPLES / name / "manual.cpp").read_text(), deleted)
    result = check_text(text, tmp_path)
    if not guards_edge:
        # Priming set + draining wait: the loop's edge survives, the flag is unbalanced.
        assert not result.races
        assert result.flags and all(f.steps[0].src == src and f.steps[0].dst == dst for f in result.flags)
        return
    if (name, set_line) in REDUNDANT:
        return
    expected_second = set()
    for w in wait_lines:
        stmt = _sync_stmt(kernel, w)
        after = [ln for ln in _instr_lines(kernel, stmt, dst) if ln > w]
        if after:
            expected_second.add(after[0])
    depth = len(_sync_stmt(kernel, wait_lines[0]).via)
    hits = [r for r in result.races
            if r.first.pipe == src and r.second.pipe == dst and r.missing == f"needs {src} -> {dst}"
            and kernel_line(r.second, depth) in expected_second]
    assert hits, (f"no {src}->{dst} race at lines {sorted(expected_second)}; got "
                  f"{[(r.first.loc.line, r.second.loc.line, r.missing) for r in result.races]}")


BARRIERS = [(n, line) for n in SAMPLE_NAMES
            for line, _ in barrier_lines((SAMPLES / n / "manual.cpp").read_text())]


@pytest.mark.parametrize("name,line", BARRIERS, ids=[f"{n}-barrier{ln}" for n, ln in BARRIERS])
def test_deleting_a_barrier(name, line, tmp_path):
    kernel, _, _ = original(name)
    stmt = _sync_stmt(kernel, line)
    pipe = stmt.src
    lines = _instr_lines(kernel, stmt, pipe)
    before, after = max(ln for ln in lines if ln < line), min(ln for ln in lines if ln > line)
    result = check_text(blank_lines((SAMPLES / name / "manual.cpp").read_text(), [line]), tmp_path)
    if (name, line) in IMPLIED:
        assert (SAMPLES / name / "manual.cpp").read_text().splitlines()[before - 1].strip().startswith("TROW")
        assert result.clean, [d.format() for d in result.diagnostics()]
        return
    depth = len(stmt.via)
    assert any(r.missing == f"needs pipe_barrier(PIPE_{pipe})" and kernel_line(r.first, depth) == before
               and kernel_line(r.second, depth) == after for r in result.races), \
        [(r.first.loc.line, r.second.loc.line, r.missing) for r in result.races]
    assert not result.flags


HALVES = [(n, line, kind, src[5:], dst[5:]) for n in SAMPLE_NAMES
          for line, kind, src, dst, _ in sync_lines((SAMPLES / n / "manual.cpp").read_text())]


@pytest.mark.parametrize("name,line,kind,src,dst", HALVES, ids=[f"{h[0]}-{h[2][:3]}{h[1]}" for h in HALVES])
def test_deleting_half_a_pair_is_a_deadlock(name, line, kind, src, dst, tmp_path):
    result = check_text(blank_lines((SAMPLES / name / "manual.cpp").read_text(), [line]), tmp_path)
    # A missing set leaves a wait hanging; a missing wait leaves a set unconsumed (lost or at the end).
    want = {"never-set", "stuck"} if kind == "set_flag" else {"lost", "set-at-end"}
    assert any(f.kind in want and f.steps[0].src == src and f.steps[0].dst == dst for f in result.flags), \
        [(f.kind, f.steps[0].loc.line) for f in result.flags]
    assert all(d.format().count("deadlock") for d in (f.diagnostic() for f in result.flags))
