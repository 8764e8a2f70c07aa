"""Execution: control flow with concrete values, tile placement, GM views, data results, errors."""

from __future__ import annotations

import numpy as np
import pytest
from _emulator_util import SAMPLES, load, sample, trace_of

from ptorewrite.analysis import execution
from ptorewrite.analysis.footprint import single, strided
from ptorewrite.arch import profile
from ptorewrite.diagnostics import PtoError
from ptorewrite.emulator import data
from ptorewrite.emulator.verify import verify

SCALED = """#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void scaled(__gm__ float *out, __gm__ float *in, int n, float scale)
{
    using T = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
    using G = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
    T a;
    T b;
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x1000);
    for (int i = 0; i < n; ++i) {
        G gIn(in + i * 1024);
        G gOut(out + i * 1024);
        TLOAD(a, gIn);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TMULS(b, a, scale);
        pipe_barrier(PIPE_V);
        TADD(a, b, b);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(gOut, a);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    }
}
"""


def _write(tmp_path, text, name="k.cpp"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_runs_loops_with_runtime_values_and_computes(tmp_path):
    kernel = load(_write(tmp_path, SCALED), auto=False)
    trace = execution.unroll(kernel, profile("a2a3"), {"n": 3, "scale": 0.25})
    assert sum(s.kind == "op" for s in trace.steps) == 12
    assert trace.gm_extent == {"in": 3 * 4096, "out": 3 * 4096}
    gm = data.random_gm(trace.gm_extent, trace.gm_dtype, seed=5)
    x = gm["in"].view(np.float32).copy()
    data.run(trace, gm)
    np.testing.assert_array_equal(gm["out"].view(np.float32), (x * np.float32(0.25)) * 2)


def test_missing_runtime_values_are_named(tmp_path):
    kernel = load(_write(tmp_path, SCALED), auto=False)
    with pytest.raises(PtoError) as e:
        execution.unroll(kernel, profile("a2a3"), {"scale": 1.0})
    msg = e.value.format()
    assert "runtime value(s) n " in msg and "--set n=VALUE" in msg
    # `scale` only feeds TMULS's data: the trace does not need it, and holds no value for it.
    trace = execution.unroll(kernel, profile("a2a3"), {"n": 1})
    tmuls = next(s for s in trace.steps if s.name == "TMULS")
    assert tmuls.operands[-1] is None
    with pytest.raises(PtoError, match="block_idx"):
        execution.unroll(sample("vec_add", "manual"), profile("a2a3"), {})


def test_unimplemented_instruction_is_a_located_error(tmp_path):
    kernel = load(_write(tmp_path, SCALED), auto=False)
    instr = next(i for i in kernel.instructions() if i.op == "TMULS")
    instr.op = "TNOSUCHOP"
    with pytest.raises(PtoError) as e:
        execution.unroll(kernel, profile("a2a3"), {"n": 1, "scale": 1.0})
    assert e.value.format().startswith(f"{tmp_path / 'k.cpp'}:17:9: error: the emulator does not implement TNOSUCHOP")


def test_tile_used_before_tassign_and_out_of_buffer(tmp_path):
    text = SCALED.replace("    TASSIGN(b, 0x1000);\n", "")
    with pytest.raises(PtoError, match="before any TASSIGN"):
        execution.unroll(load(_write(tmp_path, text), auto=False), profile("a2a3"), {"n": 1, "scale": 1.0})
    text = SCALED.replace("TASSIGN(b, 0x1000)", "TASSIGN(b, 0x2FC00)")
    with pytest.raises(PtoError, match="outside UB"):
        execution.unroll(load(_write(tmp_path, text, "k2.cpp"), auto=False), profile("a2a3"), {"n": 1, "scale": 1.0})


def test_wrong_tassign_overlap_corrupts_the_output(tmp_path):
    """y[0] placed on x[0]: the second TLOAD overwrites the first input, as on hardware."""
    text = (SAMPLES / "vec_add" / "manual.cpp").read_text()
    bad = text.replace("TASSIGN(y[0], 2 * TILE_BYTES);", "TASSIGN(y[0], 0 * TILE_BYTES);")
    assert bad != text
    v = verify(sample("vec_add", "auto"), load(_write(tmp_path, bad), auto=False), profile("a2a3"),
               {"block_idx": 0, "block_num": 1})
    assert not v.equivalent and v.mismatches[0].param == "out"
    assert v.check.races  # and the two loads into the same bytes race on MTE2


def test_auto_tiles_get_private_storage():
    trace = trace_of(sample("gemm_double", "auto"))
    places = {}
    for s in trace.steps:
        for o in s.operands:
            if isinstance(o, execution.TileOperand):
                places[(o.decl.name, o.slot)] = o.place
    footprints = [(p.buffer, p.address) for p in places.values()]
    assert len(set(footprints)) == len(footprints)
    assert set(places) >= {("aMat", 0), ("aMat", 1), ("aLeft", 0), ("aLeft", 1), ("cAcc", 0)}


def test_aliases_bind_to_base_plus_offset():
    trace = trace_of(sample("reshape_subview", "manual"))
    tadd = next(s for s in trace.steps if s.name == "TADD" and s.operands[0].slot == 1)
    left, right = tadd.operands[1], tadd.operands[2]
    assert (left.place.address, right.place.address) == (0x2000, 0x2000 + 64 * 4)
    # Column halves of one tile do not overlap byte-wise.
    reads = [a.footprint for a in tadd.accesses if not a.write]
    assert reads[0].overlap(reads[1]) is None


def test_gm_windows_row_and_column_major_and_5d():
    gm = {"p": np.arange(4096, dtype=np.float32).view(np.uint8).copy()}
    t = execution.Trace(None, profile("a2a3"), [], 0, {}, {"p": 4096 * 4}, {"p": "fp32"}, {})
    mem = data.Memory.__new__(data.Memory)
    mem.gm, mem.buffers, mem.trace = gm, {}, t

    def window(shape, stride, offset=0):
        tensor = type("G", (), {"dtype": "fp32"})()
        return execution.GmOperand(tensor, "p", offset, shape, stride, "r", "g")

    row, home = mem.gm_window(window((1, 1, 1, 4, 8), (1, 1, 1, 64, 1), 16))
    assert home is None and row[1, 2] == 4 + 64 + 2
    col, _ = mem.gm_window(window((1, 1, 1, 8, 4), (1, 1, 1, 1, 64)))  # DN: columns contiguous
    assert col[3, 2] == 3 + 2 * 64
    five, home = mem.gm_window(window((2, 1, 1, 3, 4), (1000, 1, 1, 10, 1)))
    assert five.shape == (6, 4) and five[4, 1] == 1000 + 10 + 1


def test_footprints():
    a = strided("UB", 0, 4, [(16, 128), (64, 1)])  # left column half of a 16x128 fp32 tile
    b = strided("UB", 256, 4, [(16, 128), (64, 1)])  # right half
    whole = single("UB", 0, 8192)
    assert len(a.starts) == 16 and a.overlap(b) is None
    assert whole.covers(a) and whole.covers(b) and not a.covers(whole)
    assert a.overlap(whole) == (0, 256)
    assert list(strided("UB", 0, 4, [(16, 64), (64, 1)]).starts) == [0]  # full rows merge


def test_template_arguments():
    assert execution.template_dict(("AccPhase::Final", "pto::CmpMode::GT", "true")) == {
        "AccPhase": "Final", "CmpMode": "GT", "2": "true"}


def test_block_idx_moves_the_gm_window():
    k = sample("vec_add", "manual")
    t0 = execution.unroll(k, profile("a2a3"), {"block_idx": 0, "block_num": 2})
    t1 = execution.unroll(k, profile("a2a3"), {"block_idx": 1, "block_num": 2})
    assert t1.gm_extent["out"] == 2 * t0.gm_extent["out"]


def test_tile_in_the_hidden_scratch_is_clobbered(tmp_path):
    """On a2a3 the TROWEXPAND family overwrites UB [184 KiB, 192 KiB): a tile placed there loses data."""
    text = (SAMPLES / "softmax" / "manual.cpp").read_text()
    bad = text.replace("TASSIGN(rowMax, ROW_STAT_BASE);", "TASSIGN(rowMax, 0x2E000);")
    assert bad != text
    v = verify(sample("softmax", "auto"), load(_write(tmp_path, bad), auto=False), profile("a2a3"), {})
    assert not v.equivalent
