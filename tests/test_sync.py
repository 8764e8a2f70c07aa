"""Sync insertion: literal before/after rewrites, race-freedom, minimality, event ids."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _samples import sample_names

from ptorewrite.analysis import execution, ir
from ptorewrite.analysis.check import check_kernel
from ptorewrite.analysis.instructions import ROW_REDUCTIONS_DRAINED
from ptorewrite.arch import profile
from ptorewrite.diagnostics import Reporter
from ptorewrite.emulator import pipes
from ptorewrite.emulator.verify import verify
from ptorewrite.parse.frontend import FrontendOptions, load_kernel
from ptorewrite.transform.edits import edit_kernel
from ptorewrite.transform.memplan import plan_memory
from ptorewrite.transform.rewrite import rewrite
from ptorewrite.transform.sync import conservative_insertions, plan_syncs, sync_insertions
from ptorewrite.transform.tassign import tassign_insertions

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sample_names()
# A sample whose kernel template the file instantiates several times: each instantiation.
INSTANTIATIONS = {"tmax_launch": ["TMaxKernel<float, 32, 64>", "TMaxKernel<half, 32, 128>"]}
SAMPLE_KERNELS = [(name, entry) for name in SAMPLES for entry in INSTANTIATIONS.get(name, [None])]


def rewrite_file(path: Path, defines=(), arch="a2a3", entry=None) -> tuple[ir.Kernel, bytes, Reporter]:
    kernel = load_kernel(path, FrontendOptions(defines=list(defines), arch=arch, entry=entry))
    reporter = Reporter()
    return kernel, rewrite(kernel, profile(arch), reporter).text, reporter


def load_manual(tmp_path: Path, text: bytes, name: str, include: Path | None = None, defines=(), arch="a2a3",
                entry=None):
    out = tmp_path / name
    out.write_bytes(text)
    opts = FrontendOptions(auto_mode=False, include_dirs=[str(include)] if include else [],
                           defines=list(defines), arch=arch, entry=entry)
    return load_kernel(out, opts)


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


PING_PONG = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void scale(__gm__ float *out, __gm__ float *in)
{
    TileT x[2];
    for (int i = 0; i < 4; ++i) {
        GmT gIn(in + i * 512);
        GmT gOut(out + i * 512);
        TLOAD(x[i % 2], gIn);
        TMULS(x[i % 2], x[i % 2], 2.0f);
        TSTORE(gOut, x[i % 2]);
    }
}
"""

PING_PONG_MANUAL = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void scale(__gm__ float *out, __gm__ float *in)
{
    TileT x[2];
    TASSIGN(x[0], 0x0);  // UB 2 KiB
    TASSIGN(x[1], 0x800);  // UB 2 KiB
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // prime: x[i % 2] free at start (MTE3 -> MTE2)
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // prime: x[i % 2] free at start (MTE3 -> MTE2)
    for (int i = 0; i < 4; ++i) {
        GmT gIn(in + i * 512);
        GmT gOut(out + i * 512);
        wait_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(i % 2));  // WAR x[i % 2]: MTE3 -> MTE2 (next iteration)
        TLOAD(x[i % 2], gIn);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)(i % 2));  // RAW/WAW x[i % 2]: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(i % 2));  // RAW/WAW x[i % 2]: MTE2 -> V
        TMULS(x[i % 2], x[i % 2], 2.0f);
        set_flag(PIPE_V, PIPE_MTE3, (event_t)(i % 2));  // RAW x[i % 2]: V -> MTE3
        wait_flag(PIPE_V, PIPE_MTE3, (event_t)(i % 2));  // RAW x[i % 2]: V -> MTE3
        TSTORE(gOut, x[i % 2]);
        set_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(i % 2));  // WAR x[i % 2]: MTE3 -> MTE2 (next iteration)
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // drain: x[i % 2] (MTE3 -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // drain: x[i % 2] (MTE3 -> MTE2)
}
"""


def test_ping_pong_rewrite_is_the_expert_kernel(tmp_path):
    """Forward flags per slot, one buffer-free flag per slot primed and drained, in place."""
    _, text, reporter = rewrite_file(write(tmp_path, "scale.cpp", PING_PONG))
    assert text.decode() == PING_PONG_MANUAL
    assert not reporter.warnings


FIRST_ITERATION_GUARD = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using MatT = Tile<TileType::Mat, half, 64, 64, BLayout::ColMajor, 64, 64, SLayout::RowMajor>;
using LeftT = TileLeft<half, 64, 64>;
using RightT = TileRight<half, 64, 64>;
using AccT = TileAcc<float, 64, 64>;
using GmIn = GlobalTensor<half, Shape<1, 1, 1, 64, 64>, Stride<1, 1, 1, 256, 1>>;
using GmOut = GlobalTensor<float, Shape<1, 1, 1, 64, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void mm(__gm__ float *c, __gm__ half *a, __gm__ half *b, int steps)
{
    MatT aMat;
    MatT bMat;
    LeftT aLeft;
    RightT bRight;
    AccT acc;
    for (int k = 0; k < steps; ++k) {
        GmIn gA(a + k * 64);
        GmIn gB(b + k * 64);
        TLOAD(aMat, gA);
        TLOAD(bMat, gB);
        TMOV(aLeft, aMat);
        TMOV(bRight, bMat);
        if (k == 0) {
            TMATMUL(acc, aLeft, bRight);
        } else {
            TMATMUL_ACC(acc, acc, aLeft, bRight);
        }
    }
    GmOut gC(c);
    TSTORE(gC, acc);
}
"""


@pytest.mark.parametrize("steps", [0, 1, 2, 7])
def test_runtime_trip_counts_including_zero_stay_balanced(tmp_path, steps):
    """A loop that may run zero times: every set is waited and all flags clear, for any count."""
    _kernel, text, _ = rewrite_file(write(tmp_path, "mm.cpp", FIRST_ITERATION_GUARD))
    manual = load_manual(tmp_path, text, "mm_manual.cpp")
    result = check_kernel(manual, profile("a2a3"), {"steps": steps})
    assert result.ok, (result.races[:2], result.flag_problems[:2])


def test_guarded_matmul_and_store_after_the_loop_are_ordered(tmp_path):
    _, text, _ = rewrite_file(write(tmp_path, "mm.cpp", FIRST_ITERATION_GUARD))
    out = text.decode()
    # The store waits for the matmuls once, after the loop, not in every iteration.
    tail = out[out.index("GmOut gC(c);"):]
    assert "wait_flag(PIPE_M, PIPE_FIX" in tail
    assert re.search(r"^    }\n    set_flag\(PIPE_M, PIPE_FIX", out, re.MULTILINE)
    # Both matmul forms read the L0 tiles: one MTE1 -> M wait before the if covers both.
    body = out[out.index("TMOV(bRight, bMat);"):out.index("if (k == 0)")]
    assert "wait_flag(PIPE_MTE1, PIPE_M" in body
    assert "pipe_barrier" not in out


PHASED_TILES = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using MatT = Tile<TileType::Mat, half, 64, 64, BLayout::ColMajor, 64, 64, SLayout::RowMajor>;
using LeftT = TileLeft<half, 64, 64>;
using RightT = TileRight<half, 64, 64>;
using AccT = TileAcc<float, 64, 64>;
using GmIn = GlobalTensor<half, Shape<1, 1, 1, 64, 64>, Stride<1, 1, 1, 64, 1>>;
using GmOut = GlobalTensor<float, Shape<1, 1, 1, 64, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void tiles(__gm__ float *c, __gm__ half *a, __gm__ half *b, int count)
{
    MatT aMat;
    MatT bMat;
    LeftT aLeft;
    RightT bRight;
    AccT acc;
    for (int t = 0; t < count; ++t) {
        GmIn gA(a + t * 4096);
        GmIn gB(b + t * 4096);
        GmOut gC(c + t * 4096);
        TLOAD(aMat, gA);
        TLOAD(bMat, gB);
        TMOV(aLeft, aMat);
        TMOV(bRight, bMat);
        TMATMUL<AccPhase::Final>(acc, aLeft, bRight);
        TSTORE<STPhase::Final>(gC, acc);
    }
}
"""


def _m_fix_flags(text: str) -> list[str]:
    return re.findall(r"(?:set|wait)_flag\(PIPE_(?:M, PIPE_FIX|FIX, PIPE_M),.*", text)


@pytest.mark.parametrize("count", [0, 1, 3])
def test_a2a3_unit_flags_order_a_phased_result_and_its_store(tmp_path, count):
    """a2a3: a final matmul publishes L0C through its unit flag and a final store waits for it
    and clears it, which the next phased matmul waits for; the plan adds no M <-> FIX flag for
    either direction, and the rewrite checks clean with the handshake modelled."""
    _, text, _ = rewrite_file(write(tmp_path, "tiles.cpp", PHASED_TILES))
    assert _m_fix_flags(text.decode()) == []
    manual = load_manual(tmp_path, text, "tiles_manual.cpp")
    result = check_kernel(manual, profile("a2a3"), {"count": count})
    assert result.ok, (result.races[:2], result.flag_problems[:2])


@pytest.mark.parametrize("arch,source", [
    ("a5", PHASED_TILES),  # no unit flags modelled on a5
    ("a2a3", PHASED_TILES.replace("TMATMUL<AccPhase::Final>", "TMATMUL")),  # an unphased matmul publishes nothing
])
def test_without_the_unit_flag_handshake_m_and_fix_are_flagged(tmp_path, arch, source):
    _, text, _ = rewrite_file(write(tmp_path, "tiles.cpp", source), arch=arch)
    flags = _m_fix_flags(text.decode())
    assert any("RAW acc: M -> FIX" in f for f in flags), flags
    assert any("acc: FIX -> M" in f for f in flags), flags
    manual = load_manual(tmp_path, text, "tiles_manual.cpp", arch=arch)
    result = check_kernel(manual, profile(arch), {"count": 3})
    assert result.ok, (result.races[:2], result.flag_problems[:2])


@pytest.mark.parametrize("name,entry", SAMPLE_KERNELS)
def test_sample_output_is_race_free_and_balanced(tmp_path, name, entry):
    sample = ROOT / "samples" / name
    _kernel, text, reporter = rewrite_file(sample / "auto.cpp", entry=entry)
    assert "PIPE_ALL" not in text.decode()
    assert not reporter.warnings
    manual = load_manual(tmp_path, text, "out.cpp", include=sample, entry=entry)
    values = {v: 1 for v in manual.runtime_values}
    result = check_kernel(manual, profile("a2a3"), values)
    assert result.ok, (result.races[:2], result.flag_problems[:2])
    for s in ir.walk(manual.body):
        if isinstance(s, ir.Sync) and s.event is not None:
            env_free = s.event.free_vars()
            if not env_free:
                assert 0 <= s.event.const_value() < 8


def _plan(path: Path, defines=(), entry=None):
    kernel = load_kernel(path, FrontendOptions(defines=list(defines), entry=entry))
    arch = profile(kernel.arch)
    reporter = Reporter()
    mem = plan_memory(kernel, arch, reporter)
    return kernel, mem, plan_syncs(kernel, arch, mem.address, reporter)


@pytest.mark.parametrize("name,entry", SAMPLE_KERNELS)
def test_every_inserted_sync_is_needed(tmp_path, name, entry):
    """Removing any one inserted sync (a set/wait pair with its prime and drain, or a barrier)
    leaves a race: nothing inserted is implied by the rest."""
    sample = ROOT / "samples" / name
    kernel, mem, plan = _plan(sample / "auto.cpp", entry=entry)
    base = tassign_insertions(kernel, mem)
    assert plan.syncs
    for i, _ in enumerate(plan.syncs):
        kept = plan.syncs[:i] + plan.syncs[i + 1:]
        reduced = type(plan)(kept, plan.edges)
        text = edit_kernel(kernel, base + sync_insertions(kernel, reduced, kernel.file))
        manual = load_manual(tmp_path, text, f"minus{i}.cpp", include=sample, entry=entry)
        values = {v: 1 for v in manual.runtime_values}
        result = check_kernel(manual, profile("a2a3"), values)
        assert result.races, f"sync {plan.syncs[i].reason!r} was redundant"
        # The emulator's independent checker agrees, except for a barrier after an a2a3 float row
        # reduction, whose pto-isa implementation ends with that barrier itself (the emulator
        # counts it, the planner does not yet: an extra barrier, never a missing one).
        emulated = pipes.check(execution.unroll(manual, profile("a2a3"), values))
        s = plan.syncs[i]
        if s.kind == "barrier" and s.src == "V" and s.edge.src.op in ROW_REDUCTIONS_DRAINED:
            assert emulated.clean, f"sync {s.reason!r}: the reduction's own barrier does not order it"
            continue
        assert emulated.races, f"sync {plan.syncs[i].reason!r} was redundant (emulator)"


@pytest.mark.parametrize("name,entry", SAMPLE_KERNELS)
def test_sample_rewrite_is_verified_by_the_emulator(tmp_path, name, entry):
    """Same outputs as the AUTO kernel on random data, and no race or flag problem."""
    sample = ROOT / "samples" / name
    auto, text, _ = rewrite_file(sample / "auto.cpp", entry=entry)
    manual = load_manual(tmp_path, text, "out.cpp", include=sample, entry=entry)
    values = {"block_idx": 1, "block_num": 2}
    v = verify(auto, manual, profile("a2a3"), values, seed=7)
    assert v.equivalent, [str(m) for m in v.mismatches]
    assert v.check.clean, [d.format() for d in v.check.diagnostics()]


def test_double_buffered_gemm_overlaps_the_next_panel_load(tmp_path):
    """L1 panels and L0A/L0B ping-pong use per-slot event ids; the panel load waits only for
    its own slot to be free, so the next panel loads while the current one is multiplied."""
    sample = ROOT / "samples" / "gemm_double"
    _, text, _ = rewrite_file(sample / "auto.cpp")
    out = text.decode()
    # The panel copy index counts panels across output tiles, so loads alternate copies; two
    # panels per tile, so the tiles' count adds nothing modulo two: the panel step alone.
    assert "wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)((panel.iter % 2) + 2)" in out
    assert "wait_flag(PIPE_M, PIPE_MTE1, (event_t)(step.iter % 2" in out
    assert "set_flag(PIPE_MTE1, PIPE_M, (event_t)(step.iter % 2" in out
    # The panel loop carries no wait on the matmul pipe: loads of panel p+1 are not held
    # back by the matmuls of panel p beyond their own slot.
    panel_body = out[out.index("panelLoop.loop"):out.index("stepLoop.loop")]
    assert "PIPE_M," not in panel_body.replace("PIPE_MTE", "")


def test_a5_has_no_vector_barriers(tmp_path):
    kernel_src = PING_PONG.replace("TMULS(x[i % 2], x[i % 2], 2.0f);",
                                   "TMULS(x[i % 2], x[i % 2], 2.0f);\n        TADDS(x[i % 2], x[i % 2], 1.0f);")
    p = write(tmp_path, "two_ops.cpp", kernel_src)
    _, a2, _ = rewrite_file(p, arch="a2a3")
    _, a5, _ = rewrite_file(p, arch="a5")
    assert a2.decode().count("pipe_barrier(PIPE_V)") == 1
    assert "pipe_barrier" not in a5.decode()


TWO_OUTPUTS = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void two(__gm__ float *o1, __gm__ float *o2, __gm__ float *in)
{
    TileT x[2];
    TileT y[2];
    TileT z[2];
    for (int i = 0; i < 4; ++i) {
        GmT gIn(in + i * 512);
        GmT g1(o1 + i * 512);
        GmT g2(o2 + i * 512);
        TLOAD(x[i % 2], gIn);
        TMULS(y[i % 2], x[i % 2], 2.0f);
        TADDS(z[i % 2], x[i % 2], 1.0f);
        TSTORE(g1, y[i % 2]);
        TSTORE(g2, z[i % 2]);
    }
}
"""


def test_independent_vector_ops_need_no_barrier(tmp_path):
    """Two vector ops reading one tile and writing different tiles do not overlap; reuse of
    their outputs across iterations is already ordered through the stores' flags."""
    _, text, _ = rewrite_file(write(tmp_path, "indep.cpp", TWO_OUTPUTS))
    assert "pipe_barrier" not in text.decode()


def test_overlapping_stores_need_an_mte3_barrier(tmp_path):
    same_window = TWO_OUTPUTS.replace("GmT g2(o2 + i * 512);", "GmT g2(o1 + i * 512);")
    _, text, _ = rewrite_file(write(tmp_path, "waw.cpp", same_window))
    assert text.decode().count("pipe_barrier(PIPE_MTE3)") == 1


def test_too_many_live_events_degrade_with_a_warning(tmp_path):
    many = PING_PONG.replace("TileT x[2];", "TileT x[10];").replace("i % 2", "i % 10").replace(
        "i < 4", "i < 24")
    _kernel, text, reporter = rewrite_file(write(tmp_path, "many.cpp", many))
    assert any("more than 8 events" in d.message for d in reporter.warnings)
    manual = load_manual(tmp_path, text, "many_manual.cpp")
    assert check_kernel(manual, profile("a2a3")).ok
    ids = {int(m) for m in re.findall(r"EVENT_ID(\d)", text.decode())}
    assert ids <= set(range(8))


def test_conservative_baseline_puts_a_full_barrier_after_every_instruction(tmp_path):
    p = write(tmp_path, "scale.cpp", PING_PONG)
    kernel = load_kernel(p)
    ins = conservative_insertions(kernel, kernel.file)
    assert len(ins) == 3
    assert all(i.code == "pipe_barrier(PIPE_ALL)" for i in ins)


def test_output_is_deterministic():
    sample = ROOT / "samples" / "gemm_double" / "auto.cpp"
    assert rewrite_file(sample)[1] == rewrite_file(sample)[1]


def test_pipe_graph_links_every_sync_to_the_dependence_it_orders():
    from ptorewrite.transform.sync import pipe_graph

    _kernel, _, plan = _plan(ROOT / "samples" / "vec_add" / "auto.cpp")
    g = pipe_graph(plan)
    syncs = [n for n in g.nodes if isinstance(n, tuple) and n[0] == "sync"]
    assert len(syncs) == len(plan.syncs)
    pipes = {g.nodes[n]["pipe"] for n in g.nodes if not isinstance(n, tuple)}
    assert pipes == {"MTE2", "V", "MTE3"}
    for n in syncs:
        (src,) = g.predecessors(n)
        (dst,) = g.successors(n)
        assert g.nodes[src]["pipe"] == g.nodes[n]["src"] and g.nodes[dst]["pipe"] == g.nodes[n]["dst"]


def test_helper_guarded_by_a_constant_at_one_call_and_a_runtime_value_at_another(capsys):
    # One call passes 1, the loop's calls `i % period == 0`: both copies keep the `if`, so the
    # helper has one text, right for every period.
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_refresh_some_calls.cpp"
    expected = path.with_name("helper_refresh_some_calls.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    for period in ("1", "2", "5", "7"):
        capsys.readouterr()
        assert main(["verify", "--set", f"period={period}", str(path), str(expected)]) == 0
        assert "outputs equivalent" in capsys.readouterr().out


RUNTIME_BRANCH = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void rt(__gm__ float *out, __gm__ float *in, int n)
{
    TileT x;
    GmT gIn(in);
    GmT gOut(out);
    TLOAD(x, gIn);
    if (n > 10) {
        TMULS(x, x, 2.0f);
    }
    TSTORE(gOut, x);
}
"""


def test_a_branch_on_a_runtime_value_is_synchronized_for_every_value(tmp_path, capsys):
    """No value is sampled: a condition on a kernel argument takes both branches in the analysis,
    so the rewrite is right whatever the argument is at run time."""
    from ptorewrite.cli import main

    path = write(tmp_path, "rt.cpp", RUNTIME_BRANCH)
    out = tmp_path / "rt_manual.cpp"
    assert main(["auto2manual", str(path), "-o", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err
    manual = load_kernel(out, FrontendOptions(auto_mode=False))
    for n in (0, 10, 11, 1000):
        assert check_kernel(manual, profile("a2a3"), {"n": n}).ok
    assert main(["auto2manual", str(path), "--set", "m=1"]) == 2
    assert "--set names m" in capsys.readouterr().err


BRANCHES = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void pick(__gm__ float *out, __gm__ float *a, __gm__ float *b, int useA)
{
    TileT x;
    TileT y;
    GmT gA(a);
    GmT gB(b);
    GmT gOut(out);
    if (useA > 0) {
        TLOAD(x, gA);
    } else {
        TLOAD(x, gB);
        TMULS(x, x, 2.0f);
    }
    TADDS(y, x, 1.0f);
    TSTORE(gOut, y);
}
"""


@pytest.mark.parametrize("use_a", [0, 1])
def test_if_else_is_ordered_on_both_paths(tmp_path, use_a):
    """A producer in either branch is ordered before the consumer after the merge, whichever
    branch runs: the syncs sit where both paths pass."""
    _, text, reporter = rewrite_file(write(tmp_path, "pick.cpp", BRANCHES))
    assert not reporter.warnings
    manual = load_manual(tmp_path, text, "pick_manual.cpp")
    result = check_kernel(manual, profile("a2a3"), {"useA": use_a})
    assert result.ok, (result.races[:2], result.flag_problems[:2])
    emulated = pipes.check(execution.unroll(manual, profile("a2a3"), {"useA": use_a}))
    assert emulated.clean


def test_prefetched_tile_is_waited_for_one_iteration_later(tmp_path):
    """Software pipelining: iteration i loads the slot iteration i + 1 computes on. The consumer
    waits for the load issued one iteration earlier (its own slot), not for the one just issued,
    and the load waits only for the slot it overwrites: only the first iteration's ids are
    primed and only the last one's drained."""
    sample = ROOT / "tests" / "kernels" / "prefetch.cpp"
    auto, text, reporter = rewrite_file(sample)
    assert not reporter.warnings
    out = text.decode()
    assert "set_flag(PIPE_MTE2, PIPE_V, (event_t)((i + 1) % 2));" in out
    assert "wait_flag(PIPE_MTE2, PIPE_V, (event_t)(i % 2));" in out
    assert "wait_flag(PIPE_V, PIPE_MTE2, (event_t)((i + 1) % 2));" in out
    assert out.count("set_flag(PIPE_MTE2, PIPE_V, EVENT_ID") == 1  # one prime
    manual = load_manual(tmp_path, text, "prefetch_manual.cpp")
    v = verify(auto, manual, profile("a2a3"), {}, seed=5)
    assert v.equivalent and v.check.clean
    # The load of the next tile overlaps the compute on this one.
    from ptorewrite.emulator import schedule

    trace = execution.unroll(manual, profile("a2a3"), {})
    assert schedule.simulate(trace).total < 0.9 * schedule.simulate(trace, serial=True).total


def test_ping_pong_variable_indexes_events_like_a_loop_slot(tmp_path):
    """`x[ping]` with `ping = 1 - ping` double-buffers like `x[i % 2]`: event id = the slot."""
    sample = ROOT / "tests" / "kernels" / "ping_pong_variable.cpp"
    auto, text, _ = rewrite_file(sample)
    out = text.decode()
    assert "wait_flag(PIPE_V, PIPE_MTE2, (event_t)(ping));" in out
    assert "set_flag(PIPE_MTE2, PIPE_V, (event_t)(ping));" in out
    manual = load_manual(tmp_path, text, "pp_manual.cpp")
    v = verify(auto, manual, profile("a2a3"), {}, seed=9)
    assert v.equivalent and v.check.clean


def test_last_resort_is_a_local_full_barrier_with_a_warning(tmp_path, monkeypatch):
    """With no event id left for a pipe pair even at one id per sync, each of its dependences
    is ordered by pipe_barrier(PIPE_ALL) at its place, with a located warning; nothing is lost.
    (The budget is shrunk to zero here; real kernels reach this only with very many live flags.)"""
    from ptorewrite.transform import sync

    monkeypatch.setattr(sync, "NUM_EVENT_IDS", 0)
    sample = ROOT / "tests" / "kernels" / "prefetch.cpp"
    auto, text, reporter = rewrite_file(sample)
    full = [d for d in reporter.warnings if "pipe_barrier(PIPE_ALL)" in d.message]
    assert full and all(d.loc is not None and d.loc.file == str(sample) for d in full)
    out = text.decode()
    assert "set_flag" not in out and "wait_flag" not in out
    assert "pipe_barrier(PIPE_ALL);" in out
    manual = load_manual(tmp_path, text, "no_ids.cpp")
    v = verify(auto, manual, profile("a2a3"), {}, seed=1)
    assert v.equivalent and v.check.clean


@pytest.mark.parametrize("name", ["helper_twice", "helper_shared_output", "helper_before_and_in_loop",
                                  "helper_prologue_and_steady", "helper_two_instantiations",
                                  "helper_main_phase_in_and_before_loop", "helper_guarded_flag",
                                  "helper_nested_lanes", "helper_shifted_lane", "helper_constant_argument",
                                  "helper_three_phases", "helper_prologue_and_steady_in_block"])
def test_helper_called_twice_is_rewritten_with_one_text(capsys, name):
    # Both copies take the same lines inside the helper; what differs goes at the callers.
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / f"{name}.cpp"
    expected = path.with_name(f"{name}.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    capsys.readouterr()
    assert main(["check", str(expected)]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", str(path)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_helper_if_decided_by_a_constant_argument_keeps_its_place(capsys, tmp_path):
    # The call before the loop passes a constant that decides the helper's `if` (its load runs,
    # or with 1 never runs); the loop's call passes a variable. The decided copy keeps the `if`
    # with its dead branch empty, so the copies line up and the helper gets one text; the `if`
    # keeps the user's words.
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_constant_argument.cpp"
    expected = path.with_name("helper_constant_argument.manual.cpp").read_text()
    # The decided copy loads too, so the MTE2 -> V flag written once after the `if` is one that
    # copy needs (its own plan set it after the load, inside the `if`): no warning says otherwise.
    assert main(["auto2manual", str(path), "--check", str(path.with_name("helper_constant_argument.manual.cpp"))]) == 0
    err = capsys.readouterr().err
    assert "MTE2 -> V flag" not in err and "run it too" not in err, err
    assert "    if (part == 0) {\n        GmT from(in);\n        TLOAD(src, from);\n    }\n" \
        "    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);" in expected
    skipped = tmp_path / "skipped.cpp"
    skipped.write_text(path.read_text().replace("double_part(src, dst, 0, in, out);",
                                                "double_part(src, dst, 1, in, out);"))
    out = tmp_path / "skipped.manual.cpp"
    assert main(["auto2manual", str(skipped), "-o", str(out)]) == 0, capsys.readouterr().err
    assert "    if (part == 0) {\n" in out.read_text()
    capsys.readouterr()
    assert main(["verify", str(skipped), str(out)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_helper_copies_take_one_rotating_id_from_its_own_parameter(capsys):
    # The prologue's tiles alternate (warm[k % 2]) and the steady loop's do not; the helper's
    # flags are one text: the prologue's rotating id written with the helper's own parameter
    # (`step`), which the steady loop's call passes as k + 2. The steady loop's flags that return
    # its tiles to the next iteration, which the prologue does not need, go at that call.
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_prologue_and_steady.cpp"
    expected = path.with_name("helper_prologue_and_steady.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    err = capsys.readouterr().err
    assert "the V -> MTE2 flag (t) is needed at one call of the helper only; it is set after and waited before " \
        "the call at 28:9" in err
    text = expected.read_text()
    helper = text[text.index("scale_block(int"):text.index("extern")]
    assert re.findall(r"(?:set|wait)_flag\(PIPE_\w+, PIPE_\w+, [^;]*\)(?=;)", helper) == [
        "set_flag(PIPE_MTE2, PIPE_V, (event_t)(step % 2))", "wait_flag(PIPE_MTE2, PIPE_V, (event_t)(step % 2))",
        "set_flag(PIPE_V, PIPE_MTE3, (event_t)(step % 2))", "wait_flag(PIPE_V, PIPE_MTE3, (event_t)(step % 2))"]
    # At the call the steady loop's slot (its double-buffered t and o) is in scope: the flags
    # moved there take one id per slot, so the next load no longer waits for the last reader.
    steady = text[text.index("for (int k = 0; k < 6; ++k)"):]
    assert "wait_flag(PIPE_V, PIPE_MTE2, (event_t)((k % 2) + 2));  // WAR t" in steady
    assert "set_flag(PIPE_MTE3, PIPE_V, (event_t)(k % 2));  // WAR o" in steady


def test_nested_lane_is_the_inner_step_a_helper_names(capsys):
    # The inner loop runs two steps over two buffers: the lane is `ctx.iter % 2`, which the helper
    # reads as `sub % 2` through its parameter (the outer step reaches it only as `blk + 1`), so
    # its flags take one id per lane. Counting the outer step too, the lane had no name inside the
    # helper and its two copies needed different lines (a located error).
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_nested_lanes.cpp"
    expected = path.with_name("helper_nested_lanes.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    helper = text[text.index("halve_block(int"):text.index("extern")]
    assert helper.count("(event_t)(sub % 2)") == 4
    assert "TASSIGN(t, (ctx.iter % 2) * 0x800);" in text


def test_helper_copies_in_a_plain_loop_and_in_a_phase_loop_share_one_text(capsys, tmp_path):
    # fold_block<Phase::Main> runs in the plain loop over b and in the MultiBuffered loop's main
    # phase; fold_block<Phase::Epilogue> in its epilogue. Each copy's V -> MTE2 flag back to the
    # next load of its tile is written in every copy of the helper, on one id primed and drained
    # around the loop over heads; the main phase's last lane tile is handed to the epilogue by
    # lines inside the MultiBuffered body, the same in both phase loops.
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_main_phase_in_and_before_loop.cpp"
    expected = path.with_name("helper_main_phase_in_and_before_loop.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    err = capsys.readouterr().err
    assert "26:5: warning: this V -> MTE2 flag is needed by the helper's call at 40:13; its copies 45:13 run it too" \
        in err, err
    text = expected.read_text()
    helper = text[text.index("fold_block(RowsT"):text.index("extern")]
    assert re.findall(r"(?:set|wait)_flag\(PIPE_V, PIPE_MTE2, [^;]*\)(?=;)", helper) == [
        "wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2)", "set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2)"]
    assert "if constexpr (P == Phase::Epilogue) {\n        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);" in helper
    body = text[text.index("mb.loop<"):text.index("});", text.index("mb.loop<"))]
    assert "if (ctx.iter == 3) wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);" in body
    assert "if (ctx.iter == 2) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);" in body
    # Without the loop over heads the plain loop's copy runs before the MultiBuffered loop
    # that primes the flag: the copies are chained on one id instead, primed before the plain
    # loop and drained after the MultiBuffered loop (the plain loop's last signal is what the
    # MultiBuffered loop's first wait takes), checked and verified.
    flat = tmp_path / "flat.cpp"
    source = path.read_text()
    start = source.index("    for (int h = 0; h < 2; ++h) {\n")
    end = source.rindex("    }\n}")
    inner = source[start:end].split("\n", 1)[1]
    flat.write_text(source[:start] + "    const int h = 0;\n" + "".join(
        line[4:] + "\n" for line in inner.rstrip("\n").split("\n")) + "}\n")
    flat_manual = tmp_path / "flat.manual.cpp"
    assert main(["auto2manual", str(flat), "-o", str(flat_manual)]) == 0
    capsys.readouterr()
    text = flat_manual.read_text()
    kernel = text[text.index("extern"):]
    assert kernel.count("set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime") == 1
    assert kernel.index("// prime: part") < kernel.index("for (int b = 0") < kernel.index("mb.loop<") \
        < kernel.index("// drain: part")
    assert main(["check", str(flat_manual)]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", str(flat)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_a_guarded_flag_of_one_copy_is_written_in_every_copy(capsys):
    # The call at 32:13 reuses its panel across steps and loads it every other step: its flag
    # back to the next load is set only when the next step loads. The call at 29:13 needs none;
    # the helper has one text, so that copy runs the flag too, its guard read through its own step.
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_guarded_flag.cpp"
    expected = path.with_name("helper_guarded_flag.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    err = capsys.readouterr().err
    assert "18:5: warning: this V -> MTE2 flag is needed by the helper's call at 32:13; its copies 29:13 run it " \
        "too" in err, err
    text = expected.read_text()
    helper = text[text.index("add_panel(TileT"):text.index("extern")]
    assert "    if (((step + 1) % 2) == 0) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);" in helper
    assert "        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR panel: V -> MTE2 (next iteration)\n" \
        "        TLOAD(panel, in);" in helper


def test_lane_through_a_parameter_shifted_by_a_constant(capsys):
    # The loop passes `ctx.iter + kFirst`: its lane `ctx.iter % 2` is `(step - 3) % 2` inside the
    # helper, and the call after the loop reads the same line with its own step (7: lane 0), so
    # the flags inside the helper take one id per lane. Without a name for the lane the two copies
    # needed different lines (a located error).
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_shifted_lane.cpp"
    expected = path.with_name("helper_shifted_lane.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    helper = text[text.index("scale_block(int"):text.index("extern")]
    assert helper.count("(event_t)((step - 3) % 2)") == 4
    assert "EVENT_ID" not in helper


def test_helper_copies_with_reused_ub_keep_one_text(capsys):
    # With 8 KiB of UB the steady loop's tiles take the prologue's bytes: the reuse is ordered
    # at the callers, the helper's lines stay those of the roomy plan.
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_prologue_and_steady.cpp"
    expected = path.with_name("helper_prologue_and_steady.ub8k.manual.cpp")
    assert main(["auto2manual", str(path), "--capacity", "UB=8K", "--check", str(expected)]) == 0, \
        capsys.readouterr().out
    assert "'t[2]' shares bytes 0x0-0xfff with 'warm[2]'" in capsys.readouterr().err
    roomy = path.with_name("helper_prologue_and_steady.manual.cpp").read_text()
    text = expected.read_text()
    assert text[:text.index("extern")] == roomy[:roomy.index("extern")]
    assert main(["check", str(expected)]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", str(path), str(expected)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_helper_template_lines_are_split_on_its_own_parameter(capsys):
    # AddOneKernel<true> loads inside add_one<true>, AddOneKernel<false> before the call: the wait
    # inside the helper is for the first only, under the helper's own parameter.
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_template_per_instantiation.cpp"
    expected = path.with_name("helper_template_per_instantiation.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    helper = text[text.index("add_one(RowsT"):text.index("template <bool LOAD_IN_HELPER>")]
    assert "    if constexpr (FRESH == true) {\n        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);" in helper
    assert "LOAD_IN_HELPER" not in helper
    # The same split inside one kernel that calls both instantiations.
    one = path.with_name("helper_two_instantiations.manual.cpp").read_text()
    assert "    if constexpr (FRESH == true) {\n        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);" in one
    capsys.readouterr()
    assert main(["check", str(expected)]) == 0
    assert capsys.readouterr().out.count("0 race(s), 0 flag problem(s)") == 2
    assert main(["verify", str(path), str(expected)]) == 0
    assert capsys.readouterr().out.count("outputs equivalent") == 2


def test_helper_called_twice_keeps_one_event_id_inside_it(capsys):
    # The second call's load runs ahead of the first call's compute on MTE2, so the helper's
    # flags would need another id there; the helper has one text, so both calls keep the same id
    # and the caller returns it between them (set after the first call, waited before the second).
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_twice.cpp"
    expected = path.with_name("helper_twice.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    helper = text[text.index("shift_rows(TileT"):text.index("extern")]
    assert re.findall(r"(?:set|wait)_flag\([^)]*\)", helper) == [
        "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)", "wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)",
        "set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)", "wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)"]
    between = text[text.index("shift_rows(a, b"):text.index("shift_rows(c, d")]
    assert "set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // t consumed: V -> MTE2 (flag reuse)" in between
    assert "wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // t consumed: V -> MTE2 (flag reuse)" in between
    capsys.readouterr()
    assert main(["check", str(expected)]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", str(path)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_copies_of_one_flag_get_one_event_id_together():
    # Three flags on MTE2 -> V: `other` is planned first and must not share an id with the
    # second copy of a helper's flag (their spans overlap); the two copies share one text, so
    # both take the first id free for each of them (1), not 0 and 1 one at a time.
    from types import SimpleNamespace

    from ptorewrite.transform.sync_ids import _assign
    from ptorewrite.transform.sync_model import PlannedSync

    def at(offset):
        return SimpleNamespace(loc=ir.SourceRange("k.cpp", 1, 1, 1, 2, offset, offset + 1))

    def flag(set_offset, wait_offset):
        return PlannedSync("flag", "MTE2", "V", at(set_offset), at(wait_offset), edge=None)

    other, first, second = flag(10, 90), flag(20, 30), flag(20, 30)
    apart = {frozenset((id(other), id(second)))}
    assert _assign([other, first, second], "source", apart, 8) is None
    assert (other.event, first.event, second.event) == (0, 1, 1)
    # With no id free for both, each copy takes its own (the rewrite then names the helper).
    apart |= {frozenset((id(first), id(second)))}
    assert _assign([other, first, second], "source", apart, 8) is None
    assert (other.event, first.event, second.event) == (0, 0, 1)


def test_full_barrier_fallback_inside_a_helper_is_written_in_every_copy(capsys, monkeypatch):
    # With one event id per pipe pair, the second call's copy of the helper runs out and orders
    # its load and its store with pipe_barrier(PIPE_ALL) (warned); the first call's copy did not
    # need them. The helper has one text: the full barriers are written for both calls, with a
    # warning, as single-pipe barriers are, instead of stopping with an error.
    from ptorewrite.cli import main
    from ptorewrite.transform import sync

    monkeypatch.setattr(sync, "NUM_EVENT_IDS", 1)
    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_twice.cpp"
    expected = path.with_name("helper_twice.ids1.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    err = capsys.readouterr().err
    assert "more than 1 events would be live on MTE2 -> V; ordering t with pipe_barrier(PIPE_ALL) here" in err
    assert "14:5: warning: pipe_barrier(PIPE_ALL) is needed here in some copies of this text only" in err
    text = expected.read_text()
    helper = text[text.index("shift_rows(TileT"):text.index("extern")]
    assert helper.count("pipe_barrier(PIPE_ALL);") == 2
    assert main(["check", str(expected)]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", str(path), str(expected)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_a_plan_whose_helper_copies_differ_with_shifted_names_is_made_again_without_them(capsys, monkeypatch,
                                                                                          tmp_path):
    # Where the copies of a helper still need different lines with a caller's variable named
    # through a shifted parameter, the kernel is planned again without those names (the flag then
    # goes at each call) instead of stopping: here the first plan is made to fail that way.
    from ptorewrite.cli import main
    from ptorewrite.transform import rewrite, sync
    from ptorewrite.transform.sync_emit import HelperCopiesDiffer

    tried = []
    real = sync.sync_insertions

    def copies_differ_with_shifts(kernel, plan, main_file):
        tried.append(plan.shifted_params)
        if plan.shifted_params:
            raise HelperCopiesDiffer("copies differ", None)
        return real(kernel, plan, main_file)

    monkeypatch.setattr(rewrite.sync, "sync_insertions", copies_differ_with_shifts)
    # The steady loop's call passes `k + 2`: the first plan names `k` through it.
    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_prologue_and_steady.cpp"
    out = tmp_path / "retry.manual.cpp"
    assert main(["auto2manual", str(path), "-o", str(out)]) == 0, capsys.readouterr().err
    assert tried == [True, False]
    # This kernel's plan needs no shifted name, so the second plan writes the same kernel.
    assert out.read_text() == path.with_name("helper_prologue_and_steady.manual.cpp").read_text()
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["check", "-I", str(path.parent), str(out)]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", "-I", str(path.parent), str(path), str(out)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_a_statement_whose_helper_copies_differ_is_kept_shallow_alone_first(capsys, monkeypatch, tmp_path):
    # Where the copies of a helper disagree at one statement with the deep ends, the kernel is
    # planned again with that statement alone kept shallow (no flag end next to it from inside the
    # helper), the other deep ends kept, before every deep end is given up: here the first plan
    # is made to fail that way at the extract of `right` in block_product.
    from ptorewrite.cli import main
    from ptorewrite.transform import rewrite, sync
    from ptorewrite.transform.sync_emit import HelperCopiesDiffer
    from ptorewrite.transform.sync_model import DEEP_ENDS, SHALLOW_AT

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_declared_l0.cpp"
    from ptorewrite.parse.frontend import load_kernel

    start = path.read_bytes().index(b"TEXTRACT(right, b, 0, 0)")
    extract = next(i.loc for i in load_kernel(str(path)).instructions() if i.loc.offset == start)
    statement = (extract.file, extract.offset, extract.end_offset)
    tried = []
    real = sync.sync_insertions

    def differs_at_the_extract(kernel, plan, main_file):
        tried.append((DEEP_ENDS.get(), SHALLOW_AT.get()))
        if not SHALLOW_AT.get():
            differ = HelperCopiesDiffer("copies differ", None)
            differ.statement = statement
            raise differ
        return real(kernel, plan, main_file)

    monkeypatch.setattr(rewrite.sync, "sync_insertions", differs_at_the_extract)
    out = tmp_path / "shallow.manual.cpp"
    assert main(["auto2manual", str(path), "-o", str(out)]) == 0, capsys.readouterr().err
    assert tried[:2] == [(True, frozenset()), (True, frozenset({statement}))]
    text = out.read_text()
    # b's load is waited for before the k loop, no longer inside it before the extract; the rest
    # of the plan keeps its deep ends (the MTE1 -> M flag of each copy inside the loop).
    assert "RAW b: MTE2 -> MTE1\n        TEXTRACT(right" not in text
    assert "wait_flag(PIPE_MTE1, PIPE_M, (event_t)(leftCopy));" in text
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["verify", str(path), str(out)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_helper_copies_in_sequential_loops_share_per_lane_ids_as_one_chain(capsys):
    # scale_block runs in a prologue loop, a steady loop and an epilogue loop, one after another,
    # each over its own pair of tiles. Its flag back to the next load takes one id per lane
    # inside the helper for all three copies: primed once before the first loop and drained once
    # after the last, each loop's last signals taken by the next loop's first waits (before, each
    # call wrote a flag of its own around it, with a warning: 573 -> 520 cycles).
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_three_phases.cpp"
    expected = path.with_name("helper_three_phases.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0
    assert "cannot share one event id" not in capsys.readouterr().err
    text = expected.read_text()
    helper = text[text.index("scale_block(int"):text.index("extern")]
    assert re.findall(r"(?:set|wait)_flag\(PIPE_V, PIPE_MTE2, [^;]*\)(?=;)", helper) == [
        "wait_flag(PIPE_V, PIPE_MTE2, (event_t)(step % 2))", "set_flag(PIPE_V, PIPE_MTE2, (event_t)(step % 2))"]
    kernel = text[text.index("extern"):]
    assert kernel.count("// prime: t free at start (V -> MTE2)") == 2
    assert kernel.count("// drain: t (V -> MTE2)") == 2
    assert kernel.rindex("// prime:") < kernel.index("for (int k = 0;")
    assert kernel.index("// drain:") > kernel.index("for (int k = 10;")
    assert "flag" not in kernel[kernel.index("for (int k = 0;"):kernel.rindex("}", 0, kernel.index("// drain:"))]


def test_a_guarded_set_and_a_plain_set_after_one_helper_statement_are_two_lines():
    # pto-isa's a5 AUTO flash attention: after compute_pv's TPOP, the main loop's copy and the
    # epilogue's each set a plain MTE2 -> MTE1 flag (its operand) and one guarded by the step (its
    # FIFO slot). Each line is shared by its own copies: two groups of two, each taking one id,
    # not one group of four that no single id suits (each copy then took ids of its own, and the
    # rewrite had to plan the kernel again without its shifted-parameter names).
    from types import SimpleNamespace

    from ptorewrite.analysis.expr import Var
    from ptorewrite.transform.sync_ids import _copies
    from ptorewrite.transform.sync_model import PlannedSync

    def stmt(offset):
        return SimpleNamespace(loc=SimpleNamespace(file="k.cpp", offset=offset, end_offset=offset + 10))

    pop, use, fifo_main, fifo_epilogue = stmt(100), stmt(200), stmt(300), stmt(400)
    use_epilogue = stmt(200)
    pop_epilogue = stmt(100)

    def flag(set_at, wait_at, guard=None):
        return PlannedSync("flag", "MTE2", "MTE1", set_at, wait_at, None, set_guard=guard)

    plain_main, plain_epilogue = flag(pop, use), flag(pop_epilogue, use_epilogue)
    guarded_main = flag(pop, fifo_main, Var("first"))
    guarded_epilogue = flag(pop_epilogue, fifo_epilogue, Var("first"))
    groups = _copies([plain_main, guarded_main, plain_epilogue, guarded_epilogue])
    assert sorted(sorted(id(f) for f in g) for g in groups) == sorted(
        [sorted([id(plain_main), id(plain_epilogue)]), sorted([id(guarded_main), id(guarded_epilogue)])])


def test_a_prologue_and_a_steady_loop_in_one_block_share_per_lane_ids_inside_the_helper(capsys):
    # Both loops sit in one block, where every reverse flag is primed and drained: the copies'
    # flags of one text share their ids instead of being kept apart for their spans (before: "the
    # flags would not check with an event id each ... using one event per sync there" and "cannot
    # share one event id", each call writing its flags around it; 441 -> 384 cycles).
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_prologue_and_steady_in_block.cpp"
    expected = path.with_name("helper_prologue_and_steady_in_block.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0
    err = capsys.readouterr().err
    assert "one event per sync" not in err and "cannot share one event id" not in err, err
    text = expected.read_text()
    helper = text[text.index("scale_block(int"):text.index("extern")]
    assert re.findall(r"(?:set|wait)_flag\(PIPE_V, PIPE_MTE2, [^;]*\)(?=;)", helper) == [
        "wait_flag(PIPE_V, PIPE_MTE2, (event_t)((step % 2) + 2))", "set_flag(PIPE_V, PIPE_MTE2, (event_t)((step % 2) + 2))"]


@pytest.mark.parametrize("blocks", ["0", "1", "3"])
def test_copies_primed_before_one_block_chain_their_per_lane_ids(capsys, tmp_path, blocks):
    # pto-isa's a2a3 AUTO flash attention in small: `score` runs in a prologue loop and in the
    # main loop's first stage, `update` in its second stage and in an epilogue loop, all in one
    # block, before which every copy's reverse flag is primed. The copies of a helper's flag that
    # frees a panel for its next load are one chain of per-lane ids (the first copy keeps the
    # prime); before, they could neither share an id nor chain, were written at each call, ran
    # out of MTE1 -> MTE2 ids and took one id per sync, and the main loop's kMat and vMat were
    # left single as copies that overlap nothing (482 -> 453 cycles at blocks = 2).
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_main_loop_copies.cpp"
    expected = path.with_name("helper_main_loop_copies.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["auto2manual", str(path), "-o", str(tmp_path / "out.cpp"), "--memory-report"]) == 0
    out = capsys.readouterr()
    for tile in ("kMat", "pMat", "vMat"):
        assert f"  {tile}: 2 copies in the loop at 73:13" in out.out
    text = expected.read_text()
    score = text[text.index("void score("):text.index("void update(")]
    update = text[text.index("void update("):text.index("extern")]
    assert re.findall(r"(?:set|wait)_flag\(PIPE_MTE1, PIPE_MTE2, [^;]*\)(?=;)", score) == [
        "wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(sub % 2))", "set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(sub % 2))"]
    assert re.findall(r"(?:set|wait)_flag\(PIPE_MTE1, PIPE_MTE2, [^;]*\)(?=;)", update) == [
        "wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)((sub % 2) + 2))",
        "set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)((sub % 2) + 2))"]
    kernel = text[text.index("extern"):]
    for tile, base in (("kMat", "0xc00"), ("pMat", "0x1400"), ("vMat", "0x1c00")):
        assert f"TASSIGN({tile}, {base} + (sub % 2) * 0x400);" in kernel
    # One prime and one drain per lane of each chain, outside every loop.
    assert kernel.count("// prime: kMat free at start (MTE1 -> MTE2)") == 2
    assert kernel.count("// prime: vMat, pMat free at start (MTE1 -> MTE2)") == 2
    assert kernel.count("// drain: vMat, pMat (MTE1 -> MTE2)") == 2
    assert main(["check", str(expected), "--set", f"blocks={blocks}"]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", str(path), "--set", f"blocks={blocks}"]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


@pytest.mark.parametrize("steady", ["0", "1"])
def test_helper_copies_share_their_ids_when_the_middle_loop_may_not_run(capsys, steady):
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_three_phases_guarded.cpp"
    expected = path.with_name("helper_three_phases_guarded.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0
    assert "warning" not in capsys.readouterr().err
    text = expected.read_text()
    helper = text[text.index("scale_block(int"):text.index("extern")]
    assert "wait_flag(PIPE_V, PIPE_MTE2, (event_t)(step % 2));" in helper
    assert main(["verify", "--set", f"steady={steady}", str(path)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_helper_declared_tiles_alternate_their_copies_per_call(capsys):
    # The matmul helper declares its L0 tiles inside its k loop and is called from a prologue
    # loop, a steady loop and a MultiBuffered body: the rewrite keeps a function static in the
    # helper that picks the copy, steps it before the declaration, and names it in the TASSIGNs
    # and in the id of each copy's MTE1 -> M flag.
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_declared_l0.cpp"
    expected = path.with_name("helper_declared_l0.manual.cpp")
    text = expected.read_text()
    assert "        static uint32_t leftCopy = 1;" in text
    assert "        leftCopy = (leftCopy + 1) % 2;" in text
    assert "TASSIGN(left, leftCopy * 0x400);" in text and "TASSIGN(right, leftCopy * 0x400);" in text
    assert "wait_flag(PIPE_MTE1, PIPE_M, (event_t)(leftCopy));" in text
    # The k loop runs once on every call: the load of b is waited for inside it, right before
    # its extract, so the extract of a overlaps that load.
    body = text[text.index("TEXTRACT(left"):text.index("TMATMUL(c")]
    assert "wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);  // RAW b: MTE2 -> MTE1\n        TEXTRACT(right" in body
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    capsys.readouterr()
    assert main(["check", str(expected)]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", str(path)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


@pytest.mark.parametrize("running", ["blk + 1", "issued + 1"])
def test_helper_copies_keep_the_counter_in_a_loop_with_a_running_count(capsys, tmp_path, running):
    # The long loop's bounded run leaves whole periods out, and the loop keeps a count that never
    # repeats. Before, the count made every scalar the loop assigns unknown there, the helper's
    # counter with it: the loop's copy of the helper could not name its copy's id, so its L0
    # hand-back took one fixed id (EVENT_ID2, "next iteration") with a credit, and the MTE1 -> M
    # flag a fixed EVENT_ID0, in every call. The counter's own cycle (its updates read nothing
    # else) keeps it known: every call hands its copy back on the counter's id.
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_declared_l0_long_loop.cpp"
    expected = path.with_name("helper_declared_l0_long_loop.manual.cpp")
    if running != "blk + 1":
        source = path.read_text()
        assert "issued = blk + 1;" in source
        path = write(tmp_path, path.name, source.replace("issued = blk + 1;", f"issued = {running};"))
        assert main(["auto2manual", str(path), "-o", str(tmp_path / "out.cpp")]) == 0
        text = (tmp_path / "out.cpp").read_text()
    else:
        assert main(["auto2manual", str(path), "--check", str(expected)]) == 0
        text = expected.read_text()
    err = capsys.readouterr().err
    assert "'leftCopy' does not repeat" not in err and f"'({running})' does not repeat" in err, err
    helper = text[text.index("block_product("):text.index("one_block(")]
    assert re.findall(r"(?:set|wait)_flag\([^;]*\)(?=;)", helper) == [
        "wait_flag(PIPE_M, PIPE_MTE1, (event_t)(leftCopy))", "set_flag(PIPE_MTE1, PIPE_M, (event_t)(leftCopy))",
        "wait_flag(PIPE_MTE1, PIPE_M, (event_t)(leftCopy))", "set_flag(PIPE_M, PIPE_MTE1, (event_t)(leftCopy))"]
    assert "(flag reuse)" not in text and "PIPE_ALL" not in text
    if running == "blk + 1":
        assert main(["check", str(expected)]) == 0
        assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", str(path)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_flags_on_counted_copies_take_the_lowest_ids():
    # They are live from the kernel's first run of the helper to its last, so any other flag of
    # the pair placed before them would push them up in one kernel and not in another that runs
    # the same helper text (pto-isa's a2a3 flash attention file: EVENT_ID0 + counter at S1 =
    # 1024, EVENT_ID1 + counter at 2048, one text for both).
    from ptorewrite.transform.sync_ids import _assign
    from ptorewrite.transform.sync_model import PlannedSync

    def at(offset):
        return ir.Instr("TEXTRACT", "MTE1", (), (), ir.SourceRange("k.cpp", 1, 1, 1, 2, offset, offset + 1))

    other = PlannedSync("flag", "M", "MTE1", at(10), at(20), None)
    counted = PlannedSync("flag", "M", "MTE1", at(30), at(40), None, counted=True, slots=2)
    assert _assign([other, counted], "pair", {frozenset((id(other), id(counted)))}, 8) is None
    assert (counted.event, other.event) == (0, 2)


def test_helper_copy_under_a_runtime_if_is_the_counters_value(tmp_path):
    # One call runs only when `extra` is nonzero, so the loop's first call takes copy 1 without
    # it and copy 0 with it: the copy is the counter's run-time value, call after call, and the
    # rewrite checks and verifies for both outcomes.
    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_declared_l0_guarded.cpp"
    auto, text, _ = rewrite_file(path)
    assert b"static uint32_t leftCopy = 1;" in text
    manual = load_manual(tmp_path, text, "guarded.cpp")
    for extra, calls in ((0, 4), (1, 5)):
        steps = execution.unroll(manual, profile("a2a3"), {"extra": extra}).steps
        extracts = [s for s in steps if s.kind == "op" and s.stmt.op == "TEXTRACT"
                    and s.operands[0].decl.cpp_name == "left"]
        assert [x.operands[0].place.address for x in extracts] == [0x400 * (k % 2) for k in range(calls)]
        v = verify(auto, manual, profile("a2a3"), {"extra": extra}, seed=2)
        assert v.equivalent and v.check.clean, extra


def test_helper_copies_that_would_need_different_lines_stay_one(tmp_path):
    # Declared at the helper's top level, the L0 tiles' counted copies leave the helper's calls
    # needing different lines in it (the prologue's two calls take both copies, the steady
    # loop's calls reuse them): the plan is made again with one copy, and the report says why.
    path = ROOT / "tests" / "kernels" / "helper_calls" / "helper_declared_l0.cpp"
    text = path.read_text()
    body = ("    for (int k = 0; k < 1; ++k) {\n        TileLeft<half, 16, 32> left;\n"
            "        TileRight<half, 32, 16> right;\n        TEXTRACT(left, a, 0, 0);\n"
            "        TEXTRACT(right, b, 0, 0);\n        TMATMUL(c, left, right);\n    }\n")
    assert body in text
    flat = body.replace("    for (int k = 0; k < 1; ++k) {\n", "").replace("    }\n", "").replace("        ", "    ")
    src = write(tmp_path, "flat.cpp", text.replace(body, flat))
    kernel = load_kernel(src, FrontendOptions())
    result = rewrite(kernel, profile("a2a3"), Reporter())
    left = [d for d in result.multibuffered if (d.tile.cpp_name or d.tile.name) == "left"]
    assert left and all(d.copies == 1 and "different synchronization" in d.reason for d in left)
    assert b"leftCopy" not in result.text
    manual = load_manual(tmp_path, result.text, "flat.manual.cpp")
    v = verify(kernel, manual, profile("a2a3"), {}, seed=3)
    assert v.equivalent and v.check.clean


@pytest.mark.parametrize("name", ["helper_guarded_flag", "helper_main_loop_copies", "helper_prologue_and_steady_in_block"])
def test_credits_the_finished_plan_does_not_need_are_left_out(capsys, name):
    # A credit (a flag returning an id for its next set) is added while planning finds an id's
    # reuse unsafe; once every copy of the helpers has its lines, the reuse in these kernels is
    # safe without one, and what the credits ordered by the way has flags of its own.
    from ptorewrite.cli import main

    path = ROOT / "tests" / "kernels" / "helper_calls" / f"{name}.cpp"
    expected = path.with_name(f"{name}.manual.cpp")
    args = ["--set", "blocks=2"] if name == "helper_main_loop_copies" else []
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    assert "(flag reuse)" not in expected.read_text()
    assert main(["verify", *args, str(path), str(expected)]) == 0, capsys.readouterr().out
