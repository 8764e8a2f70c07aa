"""Pipe timing: per-op charges, overlap, the calibration GEMM point, the critical path, the timeline."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest
from _emulator_util import SAMPLE_NAMES, SAMPLES, load, sample, trace_of

from ptorewrite.emulator import schedule, timeline, timing

TOLERANCE = 0.15
# /work/shared/calibration/README.md, 128 x 64 x 256 (one tile): hand-written and fully serialized.
SMALL_GEMM = ("GEMM_M=128", "GEMM_K=64", "GEMM_N=256")
SMALL_REFERENCE = {"pipelined": 3024, "serialized": 3089}


def _small_gemm():
    return trace_of(load(SAMPLES / "gemm_double" / "manual.cpp", auto=False, defines=SMALL_GEMM))


def test_small_gemm_calibration_point_within_15_percent():
    trace = _small_gemm()
    for mode, ref in SMALL_REFERENCE.items():
        total = schedule.simulate(trace, serial=(mode == "serialized")).total
        assert abs(total - ref) <= TOLERANCE * ref, (mode, total, ref)


def test_op_charges_come_from_the_cycle_model():
    trace = _small_gemm()
    sched = schedule.simulate(trace, serial=True)
    ops = [s for s in trace.steps if s.kind == "op"]
    assert [s.name for s in ops] == ["TLOAD", "TLOAD", "TEXTRACT", "TEXTRACT", "TMATMUL", "TSTORE"]
    # Per-op figures of the calibration table (op_cycles_a2a3.csv) within timing.py's tolerance.
    for s, csv in zip(ops, (209, 418, 65, 256, 518, 1614)):
        assert abs(sched.cycles[s.index] - csv) <= 0.1 * csv
    # Serialized: the sum of the charges after the scalar prologue.
    first = sched.times[ops[0].index].start
    assert sched.total == first + sum(sched.cycles.values())
    assert first == ops[0].seq * timing.SCALAR_ISSUE_CYCLES


def test_pipelining_overlaps_the_loads():
    trace = _small_gemm()
    sched = schedule.simulate(trace)
    ops = [s for s in trace.steps if s.kind == "op"]
    t = [sched.times[s.index] for s in ops]
    assert t[2].start == t[0].end  # TEXTRACT(A) runs while TLOAD(B) still loads
    assert t[2].end < t[1].end
    assert sched.busy == {"MTE2": 625, "MTE1": 320, "M": 518, "FIX": 1614}


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_serialized_is_never_faster_and_the_path_ends_at_the_total(name):
    trace = trace_of(sample(name, "manual"))
    fast, slow = schedule.simulate(trace), schedule.simulate(trace, serial=True)
    assert slow.total >= fast.total
    path = fast.critical_path()
    assert path[0][1].end == fast.total
    for (_, later), (_, earlier) in itertools.pairwise(path):  # the path runs last step first
        if later.cause != "issue":
            assert later.start == earlier.end
    assert "critical path" in schedule.format_report(fast)


def test_auto_kernel_serialized_matches_the_manual_twins_serialized():
    a = schedule.simulate(trace_of(sample("vec_add", "auto")), serial=True).total
    m = schedule.simulate(trace_of(sample("vec_add", "manual")), serial=True).total
    assert abs(a - m) <= 0.05 * m  # same instructions; only the scalar issue of syncs differs


def test_timeline_is_a_self_contained_svg():
    sched = schedule.simulate(_small_gemm())
    svg = timeline.render_svg(sched)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    texts = "".join(root.itertext())
    for word in ("MTE2", "MTE1", "FIX", "TSTORE", "TLOAD"):
        assert word in texts
    assert "marker-end" in svg and "http" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")
