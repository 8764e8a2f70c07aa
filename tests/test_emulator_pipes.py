"""The race and deadlock checker: the twins are clean and equivalent; each ordering rule on its own."""

from __future__ import annotations

import pytest
from _emulator_util import ROOT, SAMPLE_NAMES, VALUES, check_text, load, sample

from ptorewrite.analysis import execution
from ptorewrite.arch import profile
from ptorewrite.diagnostics import PtoError
from ptorewrite.emulator import pipes, schedule
from ptorewrite.emulator.verify import verify


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_twin_is_equivalent_and_race_free(name):
    v = verify(sample(name, "auto"), sample(name, "manual"), profile("a2a3"), VALUES, seed=3)
    assert v.equivalent, [str(m) for m in v.mismatches]
    assert v.check.clean, [d.format() for d in v.check.diagnostics()]
    assert any(s.kind == "op" for s in v.manual.steps)


HEAD = """#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in)
{
    using T = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
    using C = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, 16, 1>;
    using G = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
    T a;
    T b;
    T c;
    C r;
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x1000);
    TASSIGN(c, 0x2000);
    TASSIGN(r, 0x3000);
    G gIn(in);
    G gOut(out);
"""


def kernel(body: str) -> str:
    return HEAD + body + "}\n"


LOAD = """    TLOAD(a, gIn);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
"""
STORE = """    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(gOut, c);
"""


def test_vector_overlap_needs_a_barrier_on_a2a3_not_on_a5(tmp_path):
    text = kernel(LOAD + "    TMULS(b, a, 2.0f);\n    TADD(c, b, a);\n" + STORE)
    r = check_text(text, tmp_path)
    assert [(x.first.loc.line, x.second.loc.line, x.kind, x.missing) for x in r.races] == [
        (21, 22, "raw", "needs pipe_barrier(PIPE_V)")]
    assert "[0x1000, 0x2000)" in r.races[0].diagnostic().format()
    assert check_text(text, tmp_path, arch="a5").clean
    fixed = kernel(LOAD + "    TMULS(b, a, 2.0f);\n    pipe_barrier(PIPE_V);\n    TADD(c, b, a);\n" + STORE)
    assert check_text(fixed, tmp_path).clean


def test_independent_vector_ops_need_nothing(tmp_path):
    text = kernel(LOAD + "    TMULS(b, a, 2.0f);\n    TADDS(c, a, 1.0f);\n" + STORE)
    assert check_text(text, tmp_path).clean


def test_row_broadcasts_share_the_hidden_scratch_on_a2a3(tmp_path):
    body = LOAD + """    TROWSUM(r, a, c);
    pipe_barrier(PIPE_V);
    TROWEXPANDMUL(b, a, r);
    TROWEXPANDMUL(c, a, r);
""" + STORE
    r = check_text(kernel(body), tmp_path)
    assert [(x.first.loc.line, x.second.loc.line, x.space, x.first_access.what) for x in r.races] == [
        (23, 24, "UB", "the hidden UB scratch")]
    assert check_text(kernel(body), tmp_path, arch="a5").clean


def test_a2a3_row_reduction_drains_the_vector_pipe_after_itself(tmp_path):
    # pto-isa's a2a3 float row reductions end with pipe_barrier(PIPE_V): a later vector op that
    # overwrites the scratch or reads the result is ordered, an earlier one is not.
    after = LOAD + "    TROWSUM(r, a, b);\n    TMULS(b, a, 2.0f);\n    TROWEXPANDMUL(c, a, r);\n" + STORE
    assert check_text(kernel(after), tmp_path).clean
    before = LOAD + "    TMULS(b, a, 2.0f);\n    TROWSUM(r, a, b);\n    pipe_barrier(PIPE_V);\n    TADD(c, a, a);\n" + STORE
    r = check_text(kernel(before), tmp_path)
    assert [(x.first.loc.line, x.second.loc.line, x.kind) for x in r.races] == [(21, 22, "raw")]


def test_a2a3_row_reduction_that_does_nothing_drains_nothing(tmp_path):
    # A source row of 1.5 repeats with a scratch narrower than 256 bytes a row: pto-isa's
    # implementation returns at once, without its barrier.
    text = HEAD.replace("    T a;", "    using W = Tile<TileType::Vec, float, 16, 96, BLayout::RowMajor, 16, 96>;\n"
                        "    using N = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;\n"
                        "    W w;\n    N n;\n    TASSIGN(w, 0x4000);\n    TASSIGN(n, 0x6000);\n    T a;")
    body = LOAD + "    TMULS(b, a, 2.0f);\n    TROWSUM(r, w, n);\n    TADD(c, b, a);\n" + STORE
    r = check_text(text + body + "}\n", tmp_path)
    assert [x.second.name for x in r.races] == ["TADD"]


def test_a2a3_row_broadcast_of_a_column_drains_the_vector_pipe_before_computing(tmp_path):
    # The column vector is broadcast into the hidden scratch, then pipe_barrier(PIPE_V), then the
    # computation: an earlier write of the full tiles is ordered, an earlier write of the vector is not.
    chain = LOAD + "    TADD(c, a, a);\n    TROWEXPANDMUL(c, c, r);\n" + STORE
    assert check_text(kernel(chain), tmp_path).clean
    vector = LOAD + "    TMULS(r, r, 2.0f);\n    TROWEXPANDMUL(c, a, r);\n" + STORE
    r = check_text(kernel(vector), tmp_path)
    assert [(x.first.loc.line, x.second.loc.line, x.kind, x.second_access.what) for x in r.races] == [
        (21, 22, "raw", "r")]
    # Nothing after the computation: the next op over its destination still needs a barrier.
    then = LOAD + "    TROWEXPANDMUL(c, a, r);\n    TADD(c, c, a);\n" + STORE
    r = check_text(kernel(then), tmp_path)
    assert [(x.first.loc.line, x.second.loc.line, x.kind) for x in r.races] == [(21, 22, "waw")]


def test_row_broadcast_of_a_row_major_vector_has_no_barrier_of_its_own(tmp_path):
    # One 32-byte block per row, row-major: pto-isa computes from it directly, no barrier.
    text = HEAD.replace("C r;", "V r;").replace(
        "    T a;", "    using V = Tile<TileType::Vec, float, 16, 8, BLayout::RowMajor, 16, 8>;\n    T a;") + \
        LOAD + "    TADD(c, a, a);\n    TROWEXPANDMUL(c, c, r);\n" + STORE + "}\n"
    r = check_text(text, tmp_path)
    assert [(x.first.loc.line, x.second.loc.line) for x in r.races] == [(22, 23)]


def test_mte2_orders_reads_but_not_overlapping_writes(tmp_path):
    twice = "    TLOAD(a, gIn);\n    TLOAD(a, gIn);\n    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n" \
            "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n    TMULS(c, a, 2.0f);\n"
    r = check_text(kernel(twice + STORE), tmp_path)
    assert [(x.kind, x.missing) for x in r.races] == [("waw", "needs pipe_barrier(PIPE_MTE2)")]
    disjoint = twice.replace("TLOAD(a, gIn);\n    TLOAD(a, gIn);", "TLOAD(a, gIn);\n    TLOAD(b, gIn);")
    assert check_text(kernel(disjoint + STORE), tmp_path).clean


def test_gm_store_then_load_needs_mte3_to_mte2(tmp_path):
    body = LOAD + "    TMULS(c, a, 2.0f);\n" + STORE + "    TLOAD(b, gOut);\n"
    r = check_text(kernel(body), tmp_path)
    assert [(x.space, x.kind, x.missing) for x in r.races] == [("GM:out", "raw", "needs MTE3 -> MTE2")]
    fixed = body.replace("    TLOAD(b, gOut);", "    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);\n"
                                              "    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);\n    TLOAD(b, gOut);")
    assert check_text(kernel(fixed), tmp_path).clean


def test_ordering_is_transitive_through_other_pipes(tmp_path):
    """V -> MTE3 -> MTE2 -> V orders the V ops before and after the chain without a V barrier."""
    body = LOAD + """    TMULS(c, a, 2.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(gOut, c);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    TLOAD(b, gIn);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
    TADD(c, b, b);
""" + STORE.replace("EVENT_ID0", "EVENT_ID2")
    assert check_text(kernel(body), tmp_path).clean


def test_wait_issued_before_its_set_is_fine_without_a_cycle(tmp_path):
    body = """    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TLOAD(a, gIn);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(c, a, 2.0f);
""" + STORE
    assert check_text(kernel(body), tmp_path).clean


def test_flag_problems(tmp_path):
    lost = kernel(LOAD.replace("    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n", "") +
                  "    TLOAD(b, gIn);\n    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n"
                  "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n    TADD(c, a, b);\n" + STORE)
    r = check_text(lost, tmp_path)
    # The second set is lost, the wait consumes the first: TADD is not ordered after TLOAD(b).
    assert [(f.kind, f.steps[0].loc.line, f.steps[1].loc.line) for f in r.flags] == [("lost", 21, 19)]
    assert "signal is lost" in r.flags[0].diagnostic().format()
    assert [(x.first.loc.line, x.second.loc.line) for x in r.races] == [(20, 23)]
    hang = kernel("    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID3);\n    TMULS(c, a, 2.0f);\n" + STORE)
    r = check_text(hang, tmp_path)
    assert [(f.kind, f.steps[0].loc.line) for f in r.flags] == [("never-set", 18)]
    cycle = kernel("""    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    TLOAD(a, gIn);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(c, a, 2.0f);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
""" + STORE)
    r = check_text(cycle, tmp_path)
    assert [(f.kind, f.steps[0].loc.line) for f in r.flags] == [("stuck", 18)]


def test_computed_event_ids_are_evaluated_and_range_checked(tmp_path):
    body = "    for (int i = 0; i < 2; ++i) {\n        set_flag(PIPE_MTE2, PIPE_V, (event_t)(i * 7));\n" \
           "        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(i * 7));\n    }\n"
    r = check_text(kernel(body + "    TMULS(c, a, 2.0f);\n" + STORE), tmp_path)
    assert r.clean and len(r.matches) == 3
    trace_events = {(s.kind, s.event) for s in execution.unroll(
        load(tmp_path / "manual.cpp", auto=False), profile("a2a3"), {}).steps
        if s.src == "MTE2"}
    assert trace_events == {("set", 0), ("wait", 0), ("set", 7), ("wait", 7)}
    bad = body.replace("i * 7", "i * 8")
    with pytest.raises(PtoError, match="event id 8 is outside 0..7"):
        check_text(kernel(bad + "    TMULS(c, a, 2.0f);\n" + STORE), tmp_path)


def test_accumulating_matmuls_need_no_barrier():
    trace = execution.unroll(sample("gemm_single", "manual"), profile("a2a3"), VALUES)
    mm = [s for s in trace.steps if s.pipe == "M"]
    assert [s.name for s in mm if s.kind == "op"] == ["TMATMUL"] + ["TMATMUL_ACC"] * 7
    assert not any(s.kind == "barrier" for s in mm)
    assert pipes.check(trace).clean


def test_pipe_barrier_all_orders_everything(tmp_path):
    body = "    TLOAD(a, gIn);\n    pipe_barrier(PIPE_ALL);\n    TMULS(c, a, 2.0f);\n    pipe_barrier(PIPE_ALL);\n" \
           "    TSTORE(gOut, c);\n"
    r = check_text(kernel(body), tmp_path)
    assert r.clean
    trace = execution.unroll(load(tmp_path / "manual.cpp", auto=False),
                           profile("a2a3"), {})
    sched = schedule.simulate(trace)
    ops = [sched.times[s.index] for s in trace.steps if s.kind == "op"]
    assert ops[1].start >= ops[0].end and ops[2].start >= ops[1].end


def test_a_set_issued_after_the_wait_but_not_ordered_after_it_can_lose_its_signal(tmp_path):
    text = (ROOT / "tests" / "kernels" / "sync" / "reuse_before_wait_ordered.cpp").read_text()
    r = check_text(text, tmp_path)
    assert not r.races
    assert [(f.kind, f.steps[0].loc.line, f.steps[1].loc.line) for f in r.flags] == [("unordered-reuse", 21, 19)]
    assert "possible lost signal" in r.flags[0].diagnostic().format()
    # A flag back from MTE2 orders PIPE_MTE3 after the wait: no problem left.
    fixed = text.replace(
        "        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);\n    }",
        "        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID1);\n        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID1);\n"
        "        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);\n    }")
    assert fixed != text
    assert check_text(fixed, tmp_path).clean



def test_a_wait_on_the_scalar_unit_orders_the_next_set_of_its_flag(tmp_path):
    """`wait_flag(PIPE_MTE2, PIPE_S)` stalls the scalar unit until it is satisfied, so the next
    iteration's set of that flag is issued after it: no signal can be lost."""
    body = "    for (int i = 0; i < 4; ++i) {\n        TLOAD(a, gIn);\n" \
           "        set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);\n        wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);\n    }\n"
    assert check_text(kernel(body), tmp_path).clean
    # Waited on PIPE_V instead, the scalar unit runs ahead: the next set may come first.
    racy = body.replace("PIPE_S", "PIPE_V")
    r = check_text(kernel(racy), tmp_path)
    assert [f.kind for f in r.flags] == ["unordered-reuse"]

CUBE = """#include <pto/pto-inst.hpp>
using namespace pto;
using MatA = Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, half, 16, 16, BLayout::RowMajor, 16, 16, SLayout::ColMajor>;
using LeftT = TileLeft<half, 16, 16, 16, 16>;
using RightT = TileRight<half, 16, 16, 16, 16>;
using AccT = TileAcc<float, 16, 16, 16, 16>;
using GmA = GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
using GmB = GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 1, 16>, Layout::DN>;
using GmC = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
// Two accumulations into one L0C tile, the second started by a fresh TMATMUL over the first.
extern "C" __global__ AICORE void twice(__gm__ float *c, __gm__ half *a, __gm__ half *b)
{
    MatA aMat;
    MatB bMat;
    LeftT aL;
    RightT bR;
    AccT acc;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x200);
    TASSIGN(aL, 0x0);
    TASSIGN(bR, 0x0);
    TASSIGN(acc, 0x0);
    GmA gA(a);
    GmB gB(b);
    GmC gC(c);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(aL, aMat);
    TMOV(bR, bMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(acc, aL, bR);
    TMATMUL_ACC(acc, acc, aL, bR);
    pipe_barrier(PIPE_M);
    TMATMUL(acc, aL, bR);
    TMATMUL_ACC(acc, acc, aL, bR);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(gC, acc);
}
"""


def test_accumulation_needs_no_barrier_but_a_fresh_product_over_it_does(tmp_path):
    """TMATMUL -> TMATMUL_ACC into one L0C tile is ordered by the cube's in-order accumulation;
    TMATMUL_ACC -> TMATMUL (the next product overwrites the tile) needs pipe_barrier(PIPE_M)."""
    assert check_text(CUBE, tmp_path).clean
    r = check_text(CUBE.replace("    pipe_barrier(PIPE_M);\n", ""), tmp_path)
    assert sorted((x.kind, x.first.name, x.second.name) for x in r.races) == [
        ("waw", "TMATMUL", "TMATMUL"), ("waw", "TMATMUL_ACC", "TMATMUL")]


UNPHASED_STORE = ROOT / "tests" / "kernels" / "unit_flag_store_without_phase.cpp"


def _check_cli(capsys, path, count):
    from ptorewrite.cli import main

    status = main(["check", "--set", f"count={count}", str(path)])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_store_without_its_phase_is_named_as_the_reason_the_next_matmul_hangs(capsys, tmp_path):
    """a2a3: a final matmul sets its accumulator's unit flag and only a store with STPhase::Final
    clears it. With an unphased store the second pass's matmul hangs on its check: reported once,
    at that matmul, naming the store, not as a lost signal and a flag left set besides."""
    path = UNPHASED_STORE
    status, out, err = _check_cli(capsys, path, 3)
    assert status == 1 and "0 race(s), 1 flag problem(s)" in out, out + err
    assert err == (
        f"{path}:37:9: error: deadlock: this matmul's unit-flag check waits until the accumulator at L0C byte 0x0 "
        "is read out, but the TSTORE at 40:9 that reads the earlier result has no STPhase::Final: a store clears "
        "the unit flag only with that phase, so the flag the final matmul at 37:9 set stays set and PIPE_M hangs "
        "here (give the store STPhase::Final, or drop the phases and order PIPE_M and PIPE_FIX with flags)\n"
        f"{path}:40:9: note: the TSTORE without STPhase::Final\n"
        f"{path}:37:9: note: the matmul with AccPhase::Final that set the flag\n")
    # One pass does not hang; the flag is left set at the end, and the store is named there too.
    status, out, err = _check_cli(capsys, path, 1)
    assert status == 1 and err == (
        f"{path}:37:9: error: the accumulator at L0C byte 0x0 published here (AccPhase::Final) is never read out "
        "by a store with STPhase::Final: its unit flag is still set when the kernel ends (the TSTORE at 40:9 "
        "reads it without that phase, which leaves the flag set)\n"
        f"{path}:40:9: note: the TSTORE without STPhase::Final\n")
    # With its phase the store clears the flag: clean at every trip count.
    fixed = tmp_path / path.name
    fixed.write_text(path.read_text().replace("TSTORE(gC, acc);", "TSTORE<STPhase::Final>(gC, acc);"))
    for count in (0, 1, 3):
        status, out, err = _check_cli(capsys, fixed, count)
        assert status == 0 and "0 race(s), 0 flag problem(s)" in out, (count, out, err)
