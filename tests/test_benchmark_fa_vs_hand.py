"""benchmarks/fa_a2a3_vs_hand.py: choosing the instantiations, reading `simulate`, the kernel
variants and the report, on small inputs (the benchmark itself is run by hand)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("fa_vs_hand", ROOT / "benchmarks" / "fa_a2a3_vs_hand.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


bench = _bench()

KERNELS = """\
/k/fa.cpp:610:24: runTFA<128, 128, 1024, 128, 128, 256, 4, 8, true, false, 4> [vec] instantiated at /k/fa.cpp:985:5
/k/fa.cpp:610:24: runTFA<128, 128, 1024, 128, 128, 256, 4, 8, false, false, 4> [vec] instantiated at /k/fa.cpp:985:5
/k/fa.cpp:610:24: runTFA<512, 128, 8192, 128, 128, 256, 4, 8, false, false, 4> [vec] instantiated at /k/fa.cpp:985:5
/k/fa.cpp:610:24: runTFA<128, 128, 8192, 128, 128, 256, 4, 8, false, false, 4> [cube] instantiated at /k/fa.cpp:985:5
"""

SIMULATE = """\
cluster of kernel runTFA<128, 128, 1024> (manual, a2a3, pipelined): 19,572 cycles = 10.58 us at 1.85 GHz
  353 instructions, 515 syncs, 1823 scalar statements issued
  cores run at once: cube, vec0, vec1; each core's last step ends at cube 18,191, vec0 19,572, vec1 950
busy cycles per pipe:
  cube.MTE2       10,425   53.3%  (25 ops)
  cube.M           8,288   42.3%  (16 ops)
  vec0.V          13,313   68.0%  (97 ops)
critical path (3 steps, earliest first; 'after' says what the step waited for):
  [      133 ..       967] cube.MTE2 2 ops: TLOAD x2  @276:13 via 828  after issue
  [      967 ..       967] cube.MTE1 wait_flag(MTE2->MTE1, 0)  @282:9 via 828  after flag set at 281:9 (cube.MTE2)
  [    2,387 ..     3,194] cube.FIX TSTORE  @306:9 via 828  after pipe free
  [    3,348 ..    14,504] vec0.V 90 ops: TROWMAX x8, TEXP x14  @81:5 via 193  after pipe free
"""


def test_the_instantiation_of_a_size_is_chosen_by_its_first_three_template_arguments():
    assert bench.entry_for(KERNELS, 128, 128, 1024) == "runTFA<128, 128, 1024, 128, 128, 256, 4, 8, true, false, 4>"
    # The hand-written file's copy without its intermediate check (the ninth argument).
    assert bench.entry_for(KERNELS, 128, 128, 1024, skip=("8=true",)) == \
        "runTFA<128, 128, 1024, 128, 128, 256, 4, 8, false, false, 4>"
    assert bench.entry_for(KERNELS, 128, 128, 8192) == "runTFA<128, 128, 8192, 128, 128, 256, 4, 8, false, false, 4>"
    assert bench.entry_for(KERNELS, 128, 128, 2048) is None


def test_a_simulate_run_is_read_for_its_cycles_core_ends_busy_pipes_and_critical_instructions():
    t = bench.parse_simulate(SIMULATE)
    assert (t.cycles, t.mode) == (19572, "manual, a2a3, pipelined")
    assert t.ends == {"cube": 18191, "vec0": 19572, "vec1": 950}
    assert t.busy == {"cube.MTE2": (10425, 25), "cube.M": (8288, 16), "vec0.V": (13313, 97)}
    assert t.critical_ops == ["TLOAD", "TSTORE", "TROWMAX", "TEXP"]
    assert bench.parse_simulate("ptorewrite: error: something\n") is None


def test_the_kernel_variants_edit_only_what_they_name():
    text = ("#define UF_ENABLE 1\n"
            "    TALLOC<P, G, TileSplitAxis::TILE_UP_DOWN>(p, g);\n"
            "        TPOP<P, G, TileSplitAxis::TILE_UP_DOWN>(p, g);\n"
            "    TPUSH<P, G, TileSplitAxis::TILE_UP_DOWN>(p, g);\n")
    drained = bench.with_drains(text).splitlines()
    assert drained[1] == "    pipe_barrier(PIPE_ALL); TALLOC<P, G, TileSplitAxis::TILE_UP_DOWN>(p, g);"
    assert drained[2] == "        pipe_barrier(PIPE_ALL); TPOP<P, G, TileSplitAxis::TILE_UP_DOWN>(p, g);"
    assert drained[3] == "    TPUSH<P, G, TileSplitAxis::TILE_UP_DOWN>(p, g);"
    assert bench.without_unit_flags(text).splitlines()[0] == "#define UF_ENABLE 0"
    assert bench.without_unit_flags("#define UF_ENABLE 10\n") == "#define UF_ENABLE 10\n"


def test_the_rows_of_the_timing_calibration_table_for_named_instructions():
    table = ("| op | rows x cols | dtype | pipe | query extras | measured | model | error % |\n"
             "|---|---|---|---|---|---:|---:|---:|\n"
             "| TADD | 1 x 8 | fp32 | VEC |  | 44 | 44 | +0.0 |\n"
             "| TCVT | 1 x 4096 | fp16 | VEC | src_dtype=fp32 | 77 | 73 | -5.2 |\n"
             "| TEXP | 1 x 8 | fp32 | VEC |  | 4 | 4 | +0.0 |\n")
    assert bench.op_errors(table, ["TCVT", "TEXP"]) == [
        ("TCVT", "1 x 4096", "fp16", "VEC", 77, 73, -5.2), ("TEXP", "1 x 8", "fp32", "VEC", 4, 4, 0.0)]


def test_the_report_gives_the_located_error_where_the_rewrite_stops_and_the_ratio_where_it_runs():
    hand = bench.parse_simulate(SIMULATE)
    ours = bench.parse_simulate(SIMULATE.replace("19,572 cycles", "24,260 cycles"))
    stopped = bench.Size(1024, "runTFA<128, 128, 1024>", "runTFA<128, 128, 1024>",
                         stopped="/pto/k/fa.cpp:325:9: error: this statement is in a helper", hand=hand)
    ran = bench.Size(8192, "runTFA<128, 128, 8192>", "runTFA<128, 128, 8192>", ours=ours, hand=hand)
    serial = bench.parse_simulate(SIMULATE.replace("19,572 cycles", "36,210 cycles"))
    drained = bench.parse_simulate(SIMULATE.replace("19,572 cycles", "23,963 cycles"))
    calibration = {"reference": 39003, "pipelined": hand, "serialized": serial,
                   "variants": [("its pipes drained (before waits)", drained), ("UF_ENABLE 0", "the edit does not apply")],
                   "op_rows": [("TEXP", "1 x 8", "fp32", "VEC", 4, 4, 0.0), ("TCVT", "1 x 4096", "fp16", "VEC", 77, 73, -5.2)]}
    text = bench.render([stopped, ran], calibration, "abc123", "def456", "/pto")
    assert "pto-isa commit `abc123`, ptorewrite commit `def456`" in text
    assert "| 128 x 128 x 1024 | 19,572 | not rewritten | - |" in text
    assert "| 128 x 128 x 8192 | 19,572 | 24,260 | 1.240x |" in text
    assert "    k/fa.cpp:325:9: error: this statement is in a helper" in text
    assert "| cube.MTE2 | 10,425 (25) | 10,425 (25) |" in text
    assert "| cube ends at | 18,191 | 18,191 |" in text
    assert "| pipelined (`simulate`) | 19,572 | 0.50 |" in text
    assert "| fully serialized (`simulate --serialize`) | 36,210 | 0.93 |" in text
    assert "| pipelined, its pipes drained (before waits) | 23,963 | 0.61 |" in text
    assert "| pipelined, UF_ENABLE 0 | - (the edit does not apply) | - |" in text
    assert "its pipes drained closes 23% of the gap (+4,391 cycles)" in text
    assert "the largest error -5.2% (TCVT 1 x 4096 fp16)" in text
    assert "7% above our fully serialized figure and 1.99x above our pipelined one" in text


def test_the_critical_waits_are_said_to_overlap():
    # Each wait's held cycles are its own pipe's idle time; waits on other pipes hold theirs in the
    # same cycles, so the column's sum (here 4,000) may exceed the cycles over the ideal-sync bound
    # (here 194): the report says the figures do not add up.
    ours = bench.Bounds(19549, 19355, 18884, [("vec0 wait_flag(MTE2->V, 0) @314:9", 3000, 1),
                                              ("cube wait_flag(MTE1->M, 0) @162:9", 1000, 2)])
    size = bench.Size(1024, "a", "h", hand=bench.parse_simulate(SIMULATE), ours_bounds=ours)
    text = "\n".join(bench._attribution(size))
    assert "synchronization costs 194 cycles over its ideal-sync bound" in text
    assert "| wait | cycles held (overlapping, not additive) | times |" in text
    assert "these figures overlap: they do not add up, and their sum can exceed the cycles over the ideal-sync " \
           "bound" in text
    assert "| `vec0 wait_flag(MTE2->V, 0) @314:9` | 3,000 | 1 |" in text
