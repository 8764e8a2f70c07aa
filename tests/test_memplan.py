"""Memory planning, TASSIGN emission, the memory report and the auto2manual command (placement side)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from _memplan_invariants import addresses, check_plan
from _samples import sample_names

from ptorewrite import cli
from ptorewrite.analysis import ir
from ptorewrite.analysis.liveness import Lifetime, analyze
from ptorewrite.arch import profile
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.parse.frontend import FrontendOptions, load_kernel, load_kernels
from ptorewrite.transform import rewrite as rewrite_mod
from ptorewrite.transform.memory_report import format_memory_report
from ptorewrite.transform.memplan import plan_memory
from ptorewrite.transform.rewrite import RewriteOptions, rewrite
from ptorewrite.transform.tassign import tassign_insertions

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sample_names()
A2A3 = profile("a2a3")
KiB = 1024

HEADER = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 16, 256, BLayout::RowMajor, 16, 256>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 256>, Stride<1, 1, 1, 256, 1>>;
"""


def sample(name: str) -> Path:
    return ROOT / "samples" / name / "auto.cpp"


def load(path) -> ir.Kernel:
    return load_kernel(path, FrontendOptions())


def kernel_file(tmp_path: Path, body: str, name: str = "k.cpp", header: str = HEADER) -> Path:
    path = tmp_path / name
    path.write_text(header + textwrap.dedent(body))
    return path


def line_of(path: Path, snippet: str, nth: int = 0) -> int:
    """1-based line of the nth line of `path` containing `snippet`."""
    return [i for i, text in enumerate(path.read_text().splitlines(), 1) if snippet in text][nth]


def plan_of(kernel: ir.Kernel, capacity: dict | None = None, reserved=None):
    reporter = Reporter()
    prof = A2A3.with_capacity(capacity) if capacity else A2A3
    return plan_memory(kernel, prof, reporter, reserved), reporter


def by_name(plan, name: str):
    return next(p for p in plan.placements if p.name == name)


@pytest.fixture
def no_sync(monkeypatch):
    """Test placement alone: the sync inserter (and multi-buffering, which serves it) is another
    module's job."""
    monkeypatch.setattr(rewrite_mod, "_sync_insertions", lambda *a: ([], None))
    monkeypatch.setattr(rewrite_mod, "multibuffer", lambda *a, **k: [])


# ---------------------------------------------------------------- samples


@pytest.mark.parametrize("name", SAMPLES)
def test_every_sample_is_placed_without_reuse(name):
    for i, kernel in enumerate(load_kernels(sample(name))):  # each instantiation of a kernel template
        plan, reporter = plan_of(kernel)
        check_plan(plan)
        assert not plan.reuses and not any(u.reuse for u in plan.buffers.values())
        assert not reporter.warnings
        again, _ = plan_of(load_kernels(sample(name))[i])
        assert addresses(again) == addresses(plan)  # deterministic


@pytest.mark.parametrize("name", ["vec_add", "gemm_single", "reshape_subview"])
def test_plan_matches_the_hand_written_twin(name):
    plan, _ = plan_of(load(sample(name)))
    core = "cube" if name.startswith("gemm") else "vec"
    twin = load_kernel(ROOT / "samples" / name / "manual.cpp", FrontendOptions(core=core))
    expected = {t.cpp_name: tuple(v for _, v in sorted(t.fixed_addresses.items()))
                for t in twin.tiles if t.alias is None}
    assert {p.name: p.addresses for p in plan.placements} == expected


def test_arrays_get_disjoint_slots_in_declaration_order():
    plan, _ = plan_of(load(sample("vec_add")))
    assert [(p.name, p.addresses) for p in plan.placements] == [
        ("x", (0x0, 0x4000)), ("y", (0x8000, 0xC000)), ("z", (0x10000, 0x14000))]
    assert plan.buffers["UB"].used == 96 * KiB


def test_aliases_land_where_treshape_and_tsubview_say():
    plan, _ = plan_of(load(sample("reshape_subview")))
    x = by_name(plan, "x")
    alias = {t.cpp_name: a for t, a in plan.aliases.items()}
    for slot in (0, 1):
        env = {"i": slot}
        assert alias["xFlat"].address(plan, env) == x.addresses[slot]
        assert alias["xLeft"].address(plan, env) == x.addresses[slot]
        assert alias["xRight"].address(plan, env) == x.addresses[slot] + 64 * 4  # column 64 of fp32
        assert alias["xTop"].address(plan, env) == x.addresses[slot]
        assert alias["xBottom"].address(plan, env) == x.addresses[slot] + 16 * 64 * 4  # row 16 of the view
    assert alias["xBottom"].slots(plan) == (0, 1)  # x[i % 2] can name either slot


def test_per_lane_tiles_are_equal_stride_blocks():
    plan, _ = plan_of(load(sample("gemm_double")))
    a_mat, b_mat = by_name(plan, "aMat"), by_name(plan, "bMat")
    assert a_mat.tile.per_lane and a_mat.tile.lane_text == "(panel.iter % 2)"
    assert not a_mat.tile.lane_constexpr
    assert a_mat.addresses == (0x0, 0x10000) and b_mat.addresses == (0x20000, 0x40000)
    assert plan.buffers["L0C"].used == 128 * KiB and plan.buffers["L0B"].used == 64 * KiB


# ---------------------------------------------------------------- liveness and reuse


def test_liveness_and_interference_graph_of_rmsnorm():
    kernel = load(sample("rmsnorm"))
    live = analyze(kernel)
    (loop,) = [s for s in ir.walk(kernel.body) if isinstance(s, ir.For)]
    lo, hi = live.loops[loop]
    t = {x.cpp_name: x for x in kernel.tiles}
    assert live.lifetimes[t["gammaRow"]] == Lifetime(0, 1)  # TLOAD, TCOLEXPAND: before the loop
    assert (live.lifetimes[t["gammaFull"]].start, live.lifetimes[t["gammaFull"]].end) == (1, hi)
    for name in ("x", "y", "sq", "meanSq"):  # declared outside, used inside: the whole loop
        lt = live.lifetimes[t[name]]
        assert (lt.start, lt.end) == (lo, hi) and lt.widened_over == (loop,)
    plan, _ = plan_of(kernel)
    g = plan.graph
    assert set(g.nodes) == set(kernel.tiles)
    assert not g.has_edge(t["gammaRow"], t["x"]) and g.has_edge(t["gammaRow"], t["gammaFull"])
    node = g.nodes[t["x"]]
    assert (node["buffer"], node["nbytes"], node["slots"], node["loop"]) == ("UB", 16 * KiB, 2, loop)
    assert node["pipes"] == frozenset({"MTE2", "V"}) and node["first_pipe"] == "MTE2"
    assert g.edges[t["x"], t["y"]]["overlap"] == (lo, hi)


IF_ELSE = """
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in, int n)
{
    GmT gIn(in);
    GmT gOut(out);
    TileT a;
    TileT b;
    TileT c;
    for (int i = 0; i < n; ++i) {
        TLOAD(c, gIn);
        if (i % 2 == 0) {
            TLOAD(a, gIn);
            TADD(a, a, c);
            TSTORE(gOut, a);
        } else {
            TEXP(b, c);
            TSTORE(gOut, b);
        }
    }
}
"""


def test_exclusive_if_else_tiles_may_share(tmp_path):
    kernel = load(kernel_file(tmp_path, IF_ELSE))
    live = analyze(kernel)
    a, b, c = (kernel.tile(n) for n in "abc")
    assert not live.lifetimes[a].overlaps(live.lifetimes[b])
    assert live.lifetimes[c].widened_over  # c is read every iteration: live across the loop
    plan, reporter = plan_of(kernel, {"UB": 32 * KiB})
    check_plan(plan)
    assert by_name(plan, "a").addresses == by_name(plan, "b").addresses
    assert [(r.tile.name, r.other.name) for r in plan.reuses] == [("b", "a")]
    # Without pressure there is no reuse.
    plan, reporter = plan_of(kernel)
    assert len({p.addresses for p in plan.placements}) == 3 and not reporter.warnings


def test_branch_tile_read_before_written_stays_live_across_the_loop(tmp_path):
    body = IF_ELSE.replace("TLOAD(a, gIn);\n            TADD(a, a, c);", "TADD(a, a, c);")
    kernel = load(kernel_file(tmp_path, body))
    live = analyze(kernel)
    a, b = kernel.tile("a"), kernel.tile("b")
    assert live.lifetimes[a].overlaps(live.lifetimes[b])  # a carries its value to the next `then`
    with pytest.raises(PtoError, match="UB overflow"):
        plan_of(kernel, {"UB": 32 * KiB})


SEQUENTIAL = """
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in)
{
    GmT gIn(in);
    GmT gOut(out);
    TileT a;
    TileT b;
    TLOAD(a, gIn);
    TEXP(a, a);
    TSTORE(gOut, a);
    TLOAD(b, gIn);
    TEXP(b, b);
    TSTORE(gOut, b);
}
"""


def test_reuse_only_when_needed_and_reported(tmp_path):
    path = kernel_file(tmp_path, SEQUENTIAL)
    kernel = load(path)
    plan, reporter = plan_of(kernel)
    assert [p.addresses for p in plan.placements] == [(0,), (0x4000,)] and not reporter.warnings
    plan, reporter = plan_of(kernel, {"UB": 16 * KiB})
    check_plan(plan)
    assert [p.addresses for p in plan.placements] == [(0,), (0,)]
    assert plan.buffers["UB"].reuse and plan.buffers["UB"].used == 16 * KiB
    (w,) = reporter.warnings
    assert w.loc.line == line_of(path, "TileT b;")
    assert "UB" in w.message and "'b'" in w.message and "'a'" in w.message
    assert "32 KiB without reuse, over the 16 KiB limit" in w.message


PIPES = """
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in, int n)
{
    GmT gIn(in);
    GmT gOut(out);
    for (int i = 0; i < n; ++i) {
        TileT a;
        TileT t1;
        TileT b;
        TileT t2;
        TileT c;
        TLOAD(a, gIn);
        TEXP(t1, a);
        TEXP(b, t1);
        TEXP(t2, b);
        TEXP(c, t2);
        TSTORE(gOut, c);
    }
}
"""


def test_reuse_prefers_tiles_handed_over_on_the_same_pipe(tmp_path):
    # t2 may take a's bytes (MTE2 -> V handover every iteration) or t1's (V only): it takes t1's.
    kernel = load(kernel_file(tmp_path, PIPES))
    plan, reporter = plan_of(kernel, {"UB": 48 * KiB})
    check_plan(plan)
    assert by_name(plan, "t2").addresses == by_name(plan, "t1").addresses
    shared = {(r.tile.name, r.other.name): r.cross_pipe for r in plan.reuses}
    assert shared[("t2", "t1")] is False
    assert len(reporter.warnings) == len(plan.reuses)


def test_reserved_ranges_stay_free(tmp_path):
    kernel = load(sample("vec_add"))
    plan, _ = plan_of(kernel, reserved={"UB": [(0, 0x1000)]})
    check_plan(plan)
    assert by_name(plan, "x").addresses == (0x1000, 0x5000)


# ---------------------------------------------------------------- overflow and fixed placements


OVERFLOW = """
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in)
{
    GmT gIn(in);
    GmT gOut(out);
    TileT x[8];
    TileT big[4];
    for (int i = 0; i < 8; ++i) {
        TLOAD(x[i], gIn);
        TLOAD(big[i % 4], gIn);
        TADD(x[i], x[i], big[i % 4]);
        TSTORE(gOut, x[i]);
    }
}
"""


def test_overflow_error_names_buffer_peak_tiles_and_remedies(tmp_path):
    path = kernel_file(tmp_path, OVERFLOW)
    with pytest.raises(PtoError) as info:
        plan_of(load(path))
    text = info.value.format()
    assert "error: UB overflow: the tiles live together at line" in text
    assert "need 192 KiB (196608 B) but UB has 184 KiB (188416 B) for tiles" in text
    assert f"k.cpp:{line_of(path, 'TileT x[8]')}:5: note: 'x[8]' 8 x 16 KiB = 128 KiB is live here (used on lines " in text
    assert f"k.cpp:{line_of(path, 'TileT big[4]')}:5: note: 'big[4]' 4 x 16 KiB = 64 KiB is live here" in text
    assert "use smaller tiles" in text and "single-buffer an array" in text and "split the loop" in text


def test_overflow_from_a_capacity_override_suggests_the_default(tmp_path):
    with pytest.raises(PtoError) as info:
        plan_of(load(sample("vec_add")), {"UB": 64 * KiB})
    text = info.value.format()
    assert "need 96 KiB (98304 B) but UB has 64 KiB (65536 B)" in text
    assert "--capacity UB=184K" in text


def test_overflow_exits_2_and_writes_nothing(tmp_path, capsys):
    src = kernel_file(tmp_path, OVERFLOW)
    out = tmp_path / "out.cpp"
    assert cli.main(["auto2manual", str(src), "-o", str(out)]) == 2
    assert not out.exists()
    assert "UB overflow" in capsys.readouterr().err
    before = src.read_bytes()
    assert cli.main(["auto2manual", str(src), "-i"]) == 2
    assert src.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".ptorewrite-")] == []


FIXED = """
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in)
{
    GmT gIn(in);
    GmT gOut(out);
    TileT a;
    TASSIGN(a, ADDR_A);
    TileT b;
    TASSIGN(b, ADDR_B);
    TileT c;
    TLOAD(a, gIn);
    TLOAD(b, gIn);
    TADD(c, a, b);
    TSTORE(gOut, c);
}
"""


def fixed_kernel(tmp_path, a: str, b: str) -> Path:
    return kernel_file(tmp_path, FIXED.replace("ADDR_A", a).replace("ADDR_B", b))


def test_fixed_placements_are_kept_and_planned_around(tmp_path):
    kernel = load(fixed_kernel(tmp_path, "0x0", "0x8000"))
    plan, _ = plan_of(kernel)
    check_plan(plan)
    assert [p.addresses for p in plan.placements] == [(0x0,), (0x8000,), (0x4000,)]
    assert [i.code for i in tassign_insertions(kernel, plan)] == ["TASSIGN(c, 0x4000)"]
    # An AUTO kernel with a few constant TASSIGNs is not refused as manual: they are kept.
    result = rewrite(kernel, A2A3, Reporter(), RewriteOptions(insert_sync=False))
    assert result.text.decode().count("TASSIGN(") == 3


def test_a_tile_declared_in_a_header_is_placed_there(tmp_path):
    (tmp_path / "helper.hpp").write_text(textwrap.dedent("""\
        AICORE inline void scaleBlock(GmT &gOut, TileT &x)
        {
            TileT tmp;
            TMULS(tmp, x, 2.0f);
            TSTORE(gOut, tmp);
        }
        """))
    kernel_part = HELPER[HELPER.index('extern "C"'):]
    path = kernel_file(tmp_path, '#include "helper.hpp"\n' + kernel_part)
    kernel = load(path)
    plan, _ = plan_of(kernel)
    (line,) = [i for i in tassign_insertions(kernel, plan) if "tmp" in i.code]
    assert line.file.endswith("helper.hpp") and line.code.startswith("TASSIGN(tmp, ")
    text = (tmp_path / "helper.hpp").read_bytes()
    assert text[line.start:line.end] == b"TileT tmp;"  # its line goes after the declaration, in the header


def test_overlapping_live_fixed_placements_are_an_error(tmp_path):
    path = fixed_kernel(tmp_path, "0x0", "0x2000")
    with pytest.raises(PtoError) as info:
        plan_of(load(path))
    text = info.value.format()
    assert f"k.cpp:{line_of(path, 'TASSIGN(b')}:5: error: TASSIGN places 'b' at 0x2000 over 'a' at 0x0 in UB " \
           "(both are live at the same time)" in text
    assert f"k.cpp:{line_of(path, 'TASSIGN(a')}:5: note: 'a' is placed here" in text


@pytest.mark.parametrize("a, message", [
    ("0x10", "TASSIGN of 'a' at 0x10 is not aligned to 32 B (the UB alignment)"),
    ("0x2E000", "TASSIGN of 'a' at 0x2e000 (16 KiB) ends at 0x32000, past the UB limit 0x2e000 (184 KiB)"),
])
def test_misplaced_fixed_tiles_are_errors(tmp_path, a, message):
    path = fixed_kernel(tmp_path, a, "0x8000")
    with pytest.raises(PtoError) as info:
        plan_of(load(path))
    assert info.value.diagnostics[0].message == message
    assert info.value.diagnostics[0].loc.line == line_of(path, "TASSIGN(a")


def test_manual_kernels_are_refused(capsys):
    path = ROOT / "samples" / "vec_add" / "manual.cpp"
    kernel = load_kernel(path, FrontendOptions(core="vec"))
    with pytest.raises(PtoError, match="already a manual-mode kernel"):
        rewrite(kernel, A2A3, Reporter())
    assert cli.main(["auto2manual", str(path)]) == 2
    assert "already a manual-mode kernel" in capsys.readouterr().err


# ---------------------------------------------------------------- TASSIGN emission (codemod style)


EMIT_BEFORE = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
using FlatT = Tile<TileType::Vec, float, 1, 1024, BLayout::RowMajor, 1, 1024>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in)
{
    GmT gIn(in);
    GmT gOut(out);
    TileT x[2];
    TileT y;
    for (int i = 0; i < 4; ++i) {
        FlatT flat;
        TRESHAPE(flat, x[i % 2]);
        TLOAD(x[i % 2], gIn);
        TMULS(flat, flat, 2.0f);
        TADD(y, x[i % 2], x[i % 2]);
        TSTORE(gOut, y);
    }
}
"""

EMIT_AFTER = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
using FlatT = Tile<TileType::Vec, float, 1, 1024, BLayout::RowMajor, 1, 1024>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in)
{
    GmT gIn(in);
    GmT gOut(out);
    TileT x[2];
    TASSIGN(x[0], 0x0);  // UB 4 KiB
    TASSIGN(x[1], 0x1000);  // UB 4 KiB
    TileT y;
    TASSIGN(y, 0x2000);  // UB 4 KiB
    for (int i = 0; i < 4; ++i) {
        FlatT flat;
        TRESHAPE(flat, x[i % 2]);
        TLOAD(x[i % 2], gIn);
        TMULS(flat, flat, 2.0f);
        TADD(y, x[i % 2], x[i % 2]);
        TSTORE(gOut, y);
    }
}
"""


def test_tassign_emission(tmp_path, no_sync):
    kernel = load(kernel_file(tmp_path, EMIT_BEFORE, header=""))
    result = rewrite(kernel, A2A3, Reporter())
    assert result.text.decode() == EMIT_AFTER


def test_checked_tassign_emission(tmp_path, no_sync):
    kernel = load(kernel_file(tmp_path, EMIT_BEFORE, header=""))
    result = rewrite(kernel, A2A3, Reporter(), RewriteOptions(checked_tassign=True))
    expected = (EMIT_AFTER.replace("TASSIGN(x[0], 0x0)", "TASSIGN<0x0>(x[0])")
                .replace("TASSIGN(x[1], 0x1000)", "TASSIGN<0x1000>(x[1])")
                .replace("TASSIGN(y, 0x2000)", "TASSIGN<0x2000>(y)"))
    assert result.text.decode() == expected


LANES_BEFORE = """\
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"
using namespace pto;
using namespace pto_auto;
using TileT = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in)
{
    MultiBuffered<2> db;
    db.loop<Range<8>>([&](auto ctx) {
        TileT t;
        GmT gIn(in + ctx.iter * 1024);
        GmT gOut(out + ctx.iter * 1024);
        TLOAD(t, gIn);
        TEXP(t, t);
        TSTORE(gOut, t);
    });
}
"""


def test_per_lane_tile_gets_one_lane_indexed_tassign(tmp_path, no_sync):
    kernel = load(kernel_file(tmp_path, LANES_BEFORE, header=""))
    text = rewrite(kernel, A2A3, Reporter()).text.decode()
    assert text == LANES_BEFORE.replace(
        "        TileT t;\n",
        "        TileT t;\n        TASSIGN(t, ctx.bufferId * 0x1000);  // UB 2 x 4 KiB, one per lane\n")
    checked = rewrite(kernel, A2A3, Reporter(), RewriteOptions(checked_tassign=True)).text.decode()
    assert "        TASSIGN<ctx.bufferId * 0x1000>(t);  // UB 2 x 4 KiB, one per lane\n" in checked


HELPER = """
AICORE inline void scaleBlock(GmT &gOut, TileT &x)
{
    TileT tmp;
    TMULS(tmp, x, 2.0f);
    TSTORE(gOut, tmp);
}

extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in)
{
    GmT gIn(in);
    GmT gOut(out);
    TileT a;
    TileT b;
    TLOAD(a, gIn);
    scaleBlock(gOut, a);
    TLOAD(b, gIn);
    scaleBlock(gOut, b);
}
"""


def test_tile_declared_in_a_helper_inlined_twice_gets_one_address(tmp_path, no_sync):
    kernel = load(kernel_file(tmp_path, HELPER))
    plan, _ = plan_of(kernel)
    check_plan(plan)
    tmp = by_name(plan, "tmp")
    assert len(tmp.members) == 2 and tmp.lifetime is not None
    text = rewrite(kernel, A2A3, Reporter()).text.decode()
    assert text.count("TASSIGN(tmp, ") == 1
    assert "    TileT tmp;\n    TASSIGN(tmp, 0x8000);  // UB 16 KiB\n" in text


# ---------------------------------------------------------------- output parses again


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("checked", [False, True])
def test_output_parses_again_with_the_planned_addresses(tmp_path, name, checked, no_sync):
    for kernel in load_kernels(sample(name)):  # each instantiation of a kernel template
        entry = kernel.name if kernel.instance is not None else None
        result = rewrite(kernel, A2A3, Reporter(), RewriteOptions(checked_tassign=checked))
        out = tmp_path / f"{name}.cpp"
        out.write_bytes(result.text)
        again = load_kernel(out, FrontendOptions(entry=entry))
        assert again.mode == "manual"
        assert [t.cpp_name for t in again.tiles] == [t.cpp_name for t in kernel.tiles]
        assigns = [s for s in ir.walk(again.body) if isinstance(s, ir.TileAssign)]
        for old, new in zip(kernel.tiles, again.tiles):
            if old.alias is not None:
                assert not new.fixed_addresses and not any(s.ref.tile is new for s in assigns)
                continue
            planned = result.plan.placement(old).addresses
            if old.per_lane:
                (s,) = [s for s in assigns if s.ref.tile is new]
                # The copy index may count enclosing loops too: stepping the innermost one visits every copy.
                zero = {v: 0 for v in s.address.free_vars()}
                assert any(tuple(s.address.eval({**zero, var: lane}) for lane in range(len(planned))) == planned
                           for var in zero)
            else:
                assert tuple(v for _, v in sorted(new.fixed_addresses.items())) == planned


# ---------------------------------------------------------------- report and command line


def test_memory_report_text(tmp_path):
    kernel = load(kernel_file(tmp_path, EMIT_BEFORE, header=""))
    plan, _ = plan_of(kernel)
    assert format_memory_report(kernel, plan) == textwrap.dedent("""\
        memory plan for kernel k (a2a3, vec core)
        UB: 12 KiB used, peak live 12 KiB at #0 (line 15), limit 184 KiB (capacity 192 KiB, align 32 B); no reuse
          x[2]: 2 x 4 KiB, stride 0x1000, decl line 11, live #0-#4 (lines 15-19), across the loop at line 13
            0x00000-0x00fff      4 KiB  x[0] (slot 0)
            0x01000-0x01fff      4 KiB  x[1] (slot 1)
              alias flat: TRESHAPE of x[(i % 2)] + 0 B, line 15
          0x02000-0x02fff      4 KiB  y  decl line 12, live #0-#4 (lines 15-19), across the loop at line 13
        """)
    assert format_memory_report(kernel, plan) == format_memory_report(kernel, plan_of(kernel)[0])


def test_cli_writes_output_and_report(tmp_path, capsys, no_sync):
    src = kernel_file(tmp_path, EMIT_BEFORE, header="")
    out = tmp_path / "out.cpp"
    assert cli.main(["auto2manual", str(src), "-o", str(out), "--memory-report"]) == 0
    assert out.read_text() == EMIT_AFTER
    cap = capsys.readouterr()
    assert cap.out.startswith("memory plan for kernel k") and cap.err == ""
    # To stdout: the kernel on stdout, the report on stderr.
    assert cli.main(["auto2manual", str(src), "--memory-report"]) == 0
    cap = capsys.readouterr()
    assert cap.out == EMIT_AFTER and cap.err.startswith("memory plan for kernel k")
    # In place.
    assert cli.main(["auto2manual", str(src), "-i"]) == 0
    assert src.read_text() == EMIT_AFTER
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cpp", "out.cpp"]


@pytest.mark.parametrize("arg", ["UB=12K", "ub=0x3000", "UB=12288", "UB=12KiB"])
def test_cli_capacity_forms(tmp_path, capsys, no_sync, arg):
    src = kernel_file(tmp_path, EMIT_BEFORE, header="")
    assert cli.main(["auto2manual", str(src), "--capacity", arg]) == 0
    assert cli.main(["auto2manual", str(src), "--capacity", "UB=8K"]) == 2
    assert "UB overflow" in capsys.readouterr().err


@pytest.mark.parametrize("arg", ["UB", "XX=4K", "UB=lots", "UB=-4"])
def test_cli_rejects_bad_capacity(tmp_path, arg):
    src = kernel_file(tmp_path, EMIT_BEFORE, header="")
    with pytest.raises(SystemExit) as info:
        cli.main(["auto2manual", str(src), "--capacity", arg])
    assert info.value.code == 2


def test_cli_reserve(tmp_path, capsys, no_sync):
    src = kernel_file(tmp_path, EMIT_BEFORE, header="")
    assert cli.main(["auto2manual", str(src), "--reserve", "UB=0:4K"]) == 0
    assert "TASSIGN(x[0], 0x1000);" in capsys.readouterr().out


def test_checked_form_falls_back_where_the_copy_index_is_not_constant(no_sync):
    """TASSIGN<addr> needs a compile-time address; a per-lane copy counted across loop runs
    varies by iteration, so that one line keeps the runtime form and says why."""
    kernel = load(sample("gemm_double"))
    text = rewrite(kernel, A2A3, Reporter(), RewriteOptions(checked_tassign=True)).text.decode()
    assert "TASSIGN(aMat, (panel.iter % 2) * 0x10000);" in text
    assert "address varies by iteration, so not TASSIGN<>" in text
    assert "TASSIGN<0x0>(cAcc);" in text
