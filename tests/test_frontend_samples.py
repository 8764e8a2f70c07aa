"""Acceptance tests of the front end (`ptorewrite ir` / `load_kernel`).

Covered: every sample (AUTO and its manual twin), kernels written in the shape of pto-isa's
AUTO kernels (tests/kernels/), the command-line options that change what is parsed (--arch,
--core, -D, --entry, -I, -p) and every bad-input case with its located diagnostic.

Expected values are worked out from the kernel sources (template arguments, constexpr
arithmetic, guards), never copied from the IR. Besides static checks, `trace` runs the IR's
control flow with concrete loop values, so trip counts, if/else conditions, ping-pong
updates and event ids are checked by what actually executes.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const, Var
from ptorewrite.cli import main as cli_main
from ptorewrite.diagnostics import PtoError
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
KERNELS = Path(__file__).resolve().parent / "kernels"
BAD = KERNELS / "bad"


# ---------------------------------------------------------------- helpers


@functools.cache
def _load(path: str, defines: tuple, arch: str, entry, core, includes: tuple) -> ir.Kernel:
    opts = FrontendOptions(defines=list(defines), arch=arch, entry=entry, core=core, include_dirs=list(includes))
    return load_kernel(path, opts)


def load(path, *, defines=(), arch="a2a3", entry=None, core=None, includes=()) -> ir.Kernel:
    """Kernels are cached: tests only read them."""
    return _load(str(path), tuple(defines), arch, entry, core, tuple(str(i) for i in includes))


def sample(name: str, mode: str = "auto", **kw) -> ir.Kernel:
    return load(SAMPLES / name / f"{mode}.cpp", **kw)


def line_of(path, text: str, start: int = 1) -> int:
    """1-based number of the first line at or after `start` that contains `text`."""
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if n >= start and text in line:
            return n
    raise AssertionError(f"{text!r} not found in {path}")


def where(path, text: str, start: int = 1) -> str:
    """`file:line:col` of the first occurrence of `text`, as diagnostics print it."""
    n = line_of(path, text, start)
    col = Path(path).read_text().splitlines()[n - 1].index(text) + 1
    return f"{path}:{n}:{col}"


def text_at(loc: ir.SourceRange) -> str:
    """The source bytes a SourceRange covers (what the insert-only rewriter edits around)."""
    return Path(loc.file).read_bytes()[loc.offset:loc.end_offset].decode()


def instrs(k: ir.Kernel) -> list[ir.Instr]:
    return list(k.instructions())


def loops(k: ir.Kernel) -> list[ir.For]:
    return [s for s in ir.walk(k.body) if isinstance(s, ir.For)]


def gm(k: ir.Kernel, name: str) -> ir.GmTensor:
    return next(g for g in k.gm_tensors if g.name == name)


def consts(exprs) -> tuple:
    return tuple(e.const_value() for e in exprs)


def accesses(i: ir.Instr) -> tuple[list[str], list[str]]:
    """(written operands, read operands): tiles as `name[index]`, GM windows as `gm:name`."""
    def text(a: ir.Arg) -> str:
        return f"gm:{a.value.tensor.name}" if a.kind == "gm" else str(a.value)

    return [text(a) for a in i.args if a.writes], [text(a) for a in i.args if a.reads]


def tile_table(k: ir.Kernel) -> dict:
    return {t.name: (t.tile_type, t.dtype, t.rows, t.cols, t.blayout, t.count, t.nbytes) for t in k.tiles}


def op_text(i: ir.Instr) -> str:
    return f"{i.op}<{', '.join(i.template_args)}>" if i.template_args else i.op


def outline(block: ir.Block) -> list:
    """The statement tree as nested lists of short strings (loops and ifs as tuples)."""
    out: list = []
    for s in block.stmts:
        if isinstance(s, ir.Instr):
            out.append(op_text(s))
        elif isinstance(s, ir.For):
            head = f"for {s.var} {s.start}..{s.stop}" + ("" if s.step == Const(1) else f" step {s.step}")
            if s.kind == "MultiBuffered":
                head = f"MB{s.buffers} {head}"
            out.append((head, outline(s.body)))
        elif isinstance(s, ir.If):
            out.append((f"if {s.cond}", outline(s.then)) + ((outline(s.other),) if s.other else ()))
        elif isinstance(s, ir.AliasDef):
            out.append(f"{s.kind} {s.dst} <- {s.src} +{s.offset_bytes}")
        elif isinstance(s, ir.TileAssign):
            out.append(f"TASSIGN {s.ref} {s.address}")
        elif isinstance(s, ir.Sync):
            out.append(f"barrier {s.src}" if s.kind == "barrier" else f"{s.kind} {s.src}->{s.dst} {s.event}")
        elif isinstance(s, ir.Assign):
            out.append(f"{s.var} = {s.value}")
        elif isinstance(s, ir.Block):
            out.extend(outline(s))
        else:
            raise TypeError(type(s).__name__)
    return out


def trace(k: ir.Kernel, env: dict | None = None) -> list[tuple[ir.Stmt, dict]]:
    """Run the control flow with concrete values: every executed leaf statement and its environment."""
    env = dict(env or {})
    out: list[tuple[ir.Stmt, dict]] = []

    def run(block: ir.Block) -> None:
        for s in block.stmts:
            if isinstance(s, ir.For):
                start, stop, step = (e.eval(env) for e in (s.start, s.stop, s.step))
                assert step > 0 and not s.inclusive
                for v in range(start, stop, step):
                    env[s.var] = v
                    run(s.body)
            elif isinstance(s, ir.If):
                if s.cond.eval(env):
                    run(s.then)
                elif s.other is not None:
                    run(s.other)
            elif isinstance(s, ir.Block):
                run(s)
            elif isinstance(s, ir.Assign):
                env[s.var] = s.value.eval(env)
            else:
                out.append((s, dict(env)))

    run(k.body)
    return out


def executed_ops(k: ir.Kernel, env: dict | None = None) -> list[str]:
    return [op_text(s) for s, _ in trace(k, env) if isinstance(s, ir.Instr)]


def check_flags_balance(k: ir.Kernel, env: dict | None = None) -> int:
    """Every wait has a pending set, no set is lost, nothing is pending at the end; returns #sets."""
    pending: set = set()
    sets = 0
    for s, e in trace(k, env):
        if isinstance(s, ir.Sync) and s.kind != "barrier":
            key = (s.src, s.dst, s.event.eval(e))
            assert 0 <= key[2] < 8
            if s.kind == "set":
                assert key not in pending, f"set {key} again before its wait at {s.loc}"
                pending.add(key)
                sets += 1
            else:
                assert key in pending, f"wait {key} without a set at {s.loc}"
                pending.remove(key)
    assert not pending
    return sets


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    rc = cli_main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


# ---------------------------------------------------------------- vec_add


def test_vec_add_auto():
    path = SAMPLES / "vec_add" / "auto.cpp"
    k = sample("vec_add")
    assert (k.name, k.arch, k.core, k.mode) == ("vec_add", "a2a3", "vec", "auto")
    assert [(p.name, p.is_pointer, p.dtype) for p in k.params] == [
        ("out", True, "uint8"), ("a", True, "uint8"), ("b", True, "uint8")]
    assert k.runtime_values == ("block_idx",)
    # Tile<Vec, float, 32, 128>: 32 * 128 * 4 bytes, two of each.
    assert tile_table(k) == {n: ("Vec", "fp32", 32, 128, "RowMajor", 2, 16384) for n in ("x", "y", "z")}
    assert outline(k.body) == [("for i 0..16", ["TLOAD", "TLOAD", "TADD", "TSTORE"])]
    assert loops(k)[0].trip_count() == 16

    ld_x, ld_y, add, st = instrs(k)
    assert [i.pipe for i in (ld_x, ld_y, add, st)] == ["MTE2", "MTE2", "V", "MTE3"]
    assert accesses(ld_x) == (["x[(i % 2)]"], ["gm:gA"])
    assert accesses(ld_y) == (["y[(i % 2)]"], ["gm:gB"])
    assert accesses(add) == (["z[(i % 2)]"], ["x[(i % 2)]", "y[(i % 2)]"])
    assert accesses(st) == (["gm:gOut"], ["z[(i % 2)]"])
    assert [add.args[0].value.index.eval({"i": i}) for i in range(4)] == [0, 1, 0, 1]

    # Core b, tile i: elements [b * 16 * 4096 + i * 4096, ...), fp32.
    for name, param in (("gA", "a"), ("gB", "b"), ("gOut", "out")):
        g = gm(k, name)
        assert (g.param, g.dtype) == (param, "fp32")
        assert consts(g.shape) == (1, 1, 1, 32, 128) and consts(g.stride) == (1, 1, 1, 128, 1)
        assert g.offset_bytes.eval({"block_idx": 3, "i": 5}) == (3 * 16 * 4096 + 5 * 4096) * 4

    # Instructions are located in the template, reached through the entry's call.
    assert add.loc.file == str(path) and add.loc.line == line_of(path, "TADD(z[slot]")
    assert [v.line for v in add.via] == [line_of(path, "vecAddKernel<float")]
    assert k.tile("x").loc.line == line_of(path, "TileT x[2];")
    # Ranges cover the whole statement, including its ';'.
    assert text_at(add.loc) == "TADD(z[slot], x[slot], y[slot]);"
    assert text_at(k.tile("x").loc) == "TileT x[2];"
    assert text_at(gm(k, "gA").loc) == "GmT gA(a + coreOffset + i * TILE_ELEMS);"
    assert text_at(loops(k)[0].loc).startswith("for (int i = 0; i < NUM_TILES; ++i) {")
    assert text_at(add.via[0]).startswith("vecAddKernel<float, VEC_ADD_ROWS") and text_at(add.via[0]).endswith(");")


def test_vec_add_manual():
    k = sample("vec_add", "manual")
    assert (k.mode, k.core) == ("manual", "vec")
    assert {t.name: t.fixed_addresses for t in k.tiles} == {
        "x": {0: 0x0, 1: 0x4000}, "y": {0: 0x8000, 1: 0xC000}, "z": {0: 0x10000, 1: 0x14000}}
    slot = "(i % 2)"
    assert outline(k.body) == [
        "TASSIGN x[0] 0", "TASSIGN x[1] 16384", "TASSIGN y[0] 32768", "TASSIGN y[1] 49152",
        "TASSIGN z[0] 65536", "TASSIGN z[1] 81920",
        "set V->MTE2 0", "set V->MTE2 1", "set MTE3->V 0", "set MTE3->V 1",
        ("for i 0..16", [
            f"wait V->MTE2 {slot}", "TLOAD", "TLOAD", f"set MTE2->V {slot}",
            f"wait MTE2->V {slot}", f"wait MTE3->V {slot}", "TADD", f"set V->MTE2 {slot}", f"set V->MTE3 {slot}",
            f"wait V->MTE3 {slot}", "TSTORE", f"set MTE3->V {slot}"]),
        "wait V->MTE2 0", "wait V->MTE2 1", "wait MTE3->V 0", "wait MTE3->V 1",
    ]
    assert check_flags_balance(k) == 4 + 16 * 4


# ---------------------------------------------------------------- softmax


def test_softmax_auto():
    k = sample("softmax")
    assert k.runtime_values == ()
    assert tile_table(k) == {
        "x": ("Vec", "fp32", 16, 256, "RowMajor", 2, 16384),
        "y": ("Vec", "fp32", 16, 256, "RowMajor", 2, 16384),
        "tmp": ("Vec", "fp32", 16, 256, "RowMajor", None, 16384),
        "rowMax": ("Vec", "fp32", 16, 1, "ColMajor", None, 64),
        "rowSum": ("Vec", "fp32", 16, 1, "ColMajor", None, 64),
    }
    ops = ["TLOAD", "TROWMAX", "TROWEXPANDSUB", "TEXP", "TROWSUM", "TROWEXPANDDIV", "TSTORE"]
    assert outline(k.body) == [("for i 0..8", ops)]
    x, y = "x[(i % 2)]", "y[(i % 2)]"
    assert [(i.pipe, accesses(i)) for i in instrs(k)] == [
        ("MTE2", ([x], ["gm:gIn"])),
        ("V", (["rowMax", "tmp"], [x, "tmp"])),  # the scratch tile is read and written
        ("V", ([y], [x, "rowMax"])),
        ("V", ([y], [y])),
        ("V", (["rowSum", "tmp"], [y, "tmp"])),
        ("V", ([y], [y, "rowSum"])),
        ("MTE3", (["gm:gOut"], [y])),
    ]
    assert gm(k, "gIn").param == "in" and gm(k, "gOut").param == "out"
    assert gm(k, "gIn").offset_bytes.eval({"i": 7}) == 7 * 16 * 256 * 4


def test_softmax_manual():
    k = sample("softmax", "manual")
    assert {t.name: t.fixed_addresses for t in k.tiles} == {
        "x": {0: 0, 1: 0x4000}, "y": {0: 0x8000, 1: 0xC000}, "tmp": {0: 0x10000},
        "rowMax": {0: 0x14000}, "rowSum": {0: 0x14100}}
    body = outline(k.body)[-5][1]
    assert [s for s in body if s == "barrier V"] == ["barrier V"] * 4
    # Each barrier sits between two vector instructions of the dependent chain.
    chain = [s for s in body if s in ("barrier V",) or s.startswith("T")]
    assert chain == ["TLOAD", "TROWMAX", "barrier V", "TROWEXPANDSUB", "barrier V", "TEXP", "barrier V",
                     "TROWSUM", "barrier V", "TROWEXPANDDIV", "TSTORE"]
    assert check_flags_balance(k) == 4 + 8 * 4


# ---------------------------------------------------------------- rmsnorm


def test_rmsnorm_auto_helper_inlined():
    path = SAMPLES / "rmsnorm" / "auto.cpp"
    k = sample("rmsnorm")
    t = tile_table(k)
    assert t["gammaRow"] == ("Vec", "fp32", 1, 256, "RowMajor", None, 1024)
    assert t["gammaFull"] == ("Vec", "fp32", 16, 256, "RowMajor", None, 16384)
    assert t["meanSq"] == t["rstd"] == ("Vec", "fp32", 16, 1, "ColMajor", None, 64)
    assert t["x"][5] == t["y"][5] == 2
    helper = ["TMUL", "TROWSUM", "TMULS", "TADDS", "TRSQRT", "TROWEXPANDMUL", "TMUL"]
    assert outline(k.body) == ["TLOAD", "TCOLEXPAND", ("for i 0..8", ["TLOAD", *helper, "TSTORE"])]

    ins = instrs(k)
    assert accesses(ins[1]) == (["gammaFull"], ["gammaRow"])
    mul, rowsum, muls, adds, rsqrt, rexp, mul2 = ins[3:10]
    # Reference parameters resolve to the caller's tiles.
    assert accesses(mul) == (["sq"], ["x[(i % 2)]", "x[(i % 2)]"])
    assert accesses(rexp) == (["y[(i % 2)]"], ["x[(i % 2)]", "rstd"])
    assert accesses(mul2) == (["y[(i % 2)]"], ["y[(i % 2)]", "gammaFull"])
    # Scalar arguments: INV_COLS = 1.0f / 256 and eps = 1e-6f.
    assert muls.scalars == [Const(1.0 / 256)]
    assert adds.scalars[0].const_value() == pytest.approx(1e-6)
    # Location in the helper; `via` = entry call, then the helper call in the loop.
    for i, text in zip((mul, rowsum, rsqrt), ("TMUL(sq, x, x);", "TROWSUM(meanSq", "TRSQRT(rstd")):
        assert i.loc.line == line_of(path, text) and text_at(i.loc).startswith(text)
        assert [v.line for v in i.via] == [line_of(path, "rmsNormKernel<float"), line_of(path, "rmsNormBlock(y[slot]")]
    assert gm(k, "gGamma").offset_bytes == Const(0) and consts(gm(k, "gGamma").shape) == (1, 1, 1, 1, 256)


def test_rmsnorm_manual_barriers_in_helper():
    path = SAMPLES / "rmsnorm" / "manual.cpp"
    k = sample("rmsnorm", "manual")
    assert k.tile("gammaRow").fixed_addresses == {0: 7 * 16384}
    assert k.tile("meanSq").fixed_addresses == {0: 7 * 16384 + 1024}
    assert k.tile("rstd").fixed_addresses == {0: 7 * 16384 + 1024 + 0x100}
    barriers = [s for s in ir.walk(k.body) if isinstance(s, ir.Sync) and s.kind == "barrier"]
    assert len(barriers) == 6 and all(b.src == "V" for b in barriers)
    assert all([v.line for v in b.via] == [line_of(path, "rmsNormKernel<float"), line_of(path, "rmsNormBlock(y[slot]")]
               for b in barriers)
    assert check_flags_balance(k) == 1 + 4 + 8 * 4


# ---------------------------------------------------------------- gemm_single


def test_gemm_single_auto():
    k = sample("gemm_single")
    assert k.core == "cube"
    assert tile_table(k) == {
        "aMat": ("Mat", "fp16", 128, 64, "ColMajor", None, 16384),
        "bMat": ("Mat", "fp16", 64, 128, "RowMajor", None, 16384),
        "aLeft": ("Left", "fp16", 128, 64, "RowMajor", None, 16384),
        "bRight": ("Right", "fp16", 64, 128, "RowMajor", None, 16384),
        "cAcc": ("Acc", "fp32", 128, 128, "ColMajor", None, 65536),
    }
    assert outline(k.body) == [
        ("for k 0..8", ["TLOAD", "TLOAD", "TMOV", "TMOV", ("if (k == 0)", ["TMATMUL"], ["TMATMUL_ACC"])]),
        "TSTORE",
    ]
    ins = instrs(k)
    assert [i.pipe for i in ins] == ["MTE2", "MTE2", "MTE1", "MTE1", "M", "M", "FIX"]
    assert accesses(ins[2]) == (["aLeft"], ["aMat"])
    assert accesses(ins[4]) == (["cAcc"], ["aLeft", "bRight"])
    assert accesses(ins[5]) == (["cAcc"], ["cAcc", "aLeft", "bRight"])
    assert accesses(ins[6]) == (["gm:gC"], ["cAcc"])
    assert executed_ops(k).count("TMATMUL") == 1 and executed_ops(k).count("TMATMUL_ACC") == 7
    # A: columns [64k, 64k + 64) of a 128 x 512 row-major matrix; B stored column major (DN).
    ga, gb, gc = gm(k, "gA"), gm(k, "gB"), gm(k, "gC")
    assert consts(ga.stride) == (1, 1, 1, 512, 1) and consts(gb.stride) == (1, 1, 1, 1, 512)
    assert consts(gb.shape) == (1, 1, 1, 64, 128)
    assert ga.offset_bytes.eval({"k": 3}) == gb.offset_bytes.eval({"k": 3}) == 3 * 64 * 2
    assert (gc.param, gc.offset_bytes, consts(gc.stride)) == ("c", Const(0), (1, 1, 1, 128, 1))


def test_gemm_single_manual():
    k = sample("gemm_single", "manual")
    assert {t.name: t.fixed_addresses for t in k.tiles} == {
        "aMat": {0: 0}, "bMat": {0: 128 * 64 * 2}, "aLeft": {0: 0}, "bRight": {0: 0}, "cAcc": {0: 0}}
    assert [(i.op, i.pipe, accesses(i)) for i in instrs(k)] == \
        [(i.op, i.pipe, accesses(i)) for i in instrs(sample("gemm_single"))]
    assert check_flags_balance(k) == 2 + 8 * 4 + 1


# ---------------------------------------------------------------- gemm_double


def _gemm_double_branch(k: ir.Kernel, panel: int, step: int) -> list[str]:
    ops = [op_text(s) for s, e in trace(k) if isinstance(s, ir.Instr) and s.op.startswith("TMATMUL")
           and (e["panel"], e["step"]) == (panel, step) and e["m"] == 0 and e["n"] == 0]
    return ops


def test_gemm_double_auto_multibuffered():
    path = SAMPLES / "gemm_double" / "auto.cpp"
    k = sample("gemm_double")
    # Default 256 x 512 x 256; base 128 x 64 x 256; STEP_K = 4 -> PANEL_K = 256, 2 panels.
    t = tile_table(k)
    assert t["aLeft"] == ("Left", "fp16", 128, 64, "RowMajor", 2, 16384)
    assert t["bRight"] == ("Right", "fp16", 64, 256, "RowMajor", 2, 32768)
    assert t["cAcc"] == ("Acc", "fp32", 128, 256, "ColMajor", None, 131072)
    # Declared inside the panel lambda: one copy per lane.
    assert t["aMat"] == ("Mat", "fp16", 128, 256, "ColMajor", 2, 65536)
    assert t["bMat"] == ("Mat", "fp16", 256, 256, "RowMajor", 2, 131072)
    assert k.tile("aMat").per_lane and k.tile("bMat").per_lane and not k.tile("aLeft").per_lane

    first = "((panel == 0) && (step == 0))"
    last = "((panel == 1) && (step == 3))"
    assert outline(k.body) == [("for m 0..2", [("for n 0..1", [
        ("MB2 for panel 0..2", ["TLOAD", "TLOAD", ("MB2 for step 0..4", [
            "TEXTRACT", "TEXTRACT",
            (f"if ({first} && {last})", ["TMATMUL<AccPhase::Final>"], [
                (f"if {first}", ["TMATMUL<AccPhase::Partial>"], [
                    (f"if {last}", ["TMATMUL_ACC<AccPhase::Final>"], ["TMATMUL_ACC<AccPhase::Partial>"])])]),
        ])]),
        "TSTORE<STPhase::Final>",
    ])])]
    mb = [f for f in loops(k) if f.kind == "MultiBuffered"]
    assert [(f.buffers, f.trip_count()) for f in mb] == [(2, 2), (2, 4)]

    ins = {op_text(i): i for i in instrs(k)}
    ld_a = next(i for i in instrs(k) if i.op == "TLOAD")
    ext_a, ext_b = [i for i in instrs(k) if i.op == "TEXTRACT"]
    assert ld_a.pipe == "MTE2" and ext_a.pipe == "MTE1"
    assert ins["TMATMUL_ACC<AccPhase::Partial>"].pipe == "M" and ins["TSTORE<STPhase::Final>"].pipe == "FIX"
    # Per-lane L1 panels alternate across output tiles: the copy index counts every panel run,
    # which with two panels per tile and two copies is the panel step alone.
    assert accesses(ext_a) == (["aLeft[(step % 2)]"], ["aMat[(panel % 2)]"])
    assert accesses(ins["TMATMUL_ACC<AccPhase::Final>"]) == (
        ["cAcc"], ["cAcc", "aLeft[(step % 2)]", "bRight[(step % 2)]"])
    # TEXTRACT(aLeft[sb], aMat, 0, kk * BASE_K) / TEXTRACT(bRight[sb], bMat, kk * BASE_K, 0).
    assert [s.eval({"step": 3}) for s in ext_a.scalars] == [0, 192]
    assert [s.eval({"step": 3}) for s in ext_b.scalars] == [192, 0]
    # Which matmul runs at each (panel, step) of an output tile.
    assert _gemm_double_branch(k, 0, 0) == ["TMATMUL<AccPhase::Partial>"]
    assert _gemm_double_branch(k, 1, 3) == ["TMATMUL_ACC<AccPhase::Final>"]
    assert _gemm_double_branch(k, 0, 3) == _gemm_double_branch(k, 1, 0) == ["TMATMUL_ACC<AccPhase::Partial>"]
    assert executed_ops(k).count("TSTORE<STPhase::Final>") == 2

    ga, gb, gc = gm(k, "gA"), gm(k, "gB"), gm(k, "gC")
    assert consts(ga.shape) == (1, 1, 1, 128, 256) and consts(ga.stride) == (1, 1, 1, 512, 1)
    assert consts(gb.shape) == (1, 1, 1, 256, 256) and consts(gb.stride) == (1, 1, 1, 1, 512)
    assert ga.offset_bytes.eval({"m": 1, "panel": 1}) == (128 * 512 + 256) * 2
    assert gb.offset_bytes.eval({"n": 0, "panel": 1}) == 256 * 2
    assert gc.offset_bytes.eval({"m": 1, "n": 0}) == 128 * 256 * 4
    tmm = ins["TMATMUL<AccPhase::Partial>"]
    assert tmm.loc.line == line_of(path, "TMATMUL<AccPhase::Partial>")
    assert [v.line for v in tmm.via] == [line_of(path, "gemmDoubleKernel<half")]


@pytest.mark.parametrize("m,k_,n,trips,panel_k", [
    (1536, 256, 1024, (12, 4, 1, 4), 256),
    (256, 4096, 256, (2, 1, 16, 4), 256),
    (128, 64, 256, (1, 1, 1, 1), 64),
])
def test_gemm_double_defines_change_trip_counts(m, k_, n, trips, panel_k):
    defines = (f"GEMM_M={m}", f"GEMM_K={k_}", f"GEMM_N={n}")
    k = sample("gemm_double", defines=defines)
    assert tuple(f.trip_count() for f in loops(k)) == trips
    assert k.tile("aMat").cols == panel_k and k.tile("bMat").rows == panel_k
    assert consts(gm(k, "gA").stride)[3] == k_ and consts(gm(k, "gC").stride)[3] == n
    ops = executed_ops(k)
    steps = trips[0] * trips[1] * trips[2] * trips[3]
    assert sum(o.startswith("TMATMUL") for o in ops) == steps
    assert ops.count("TSTORE<STPhase::Final>") == trips[0] * trips[1]
    if steps // (trips[0] * trips[1]) == 1:  # a single K step is both the first and the last
        assert ops.count("TMATMUL<AccPhase::Final>") == trips[0] * trips[1]
    else:
        assert ops.count("TMATMUL<AccPhase::Partial>") == ops.count("TMATMUL_ACC<AccPhase::Final>") == trips[0] * trips[1]
    # The manual twin follows the same -D values.
    km = sample("gemm_double", "manual", defines=defines)
    assert tuple(f.trip_count() for f in loops(km)) == trips
    # Sets: 5 primes; 2 per K step (MTE1->M, M->MTE1); 3 per panel (A, B arrived; panel read); 2 per tile.
    assert check_flags_balance(km) == 5 + steps * 2 + trips[2] * trips[0] * trips[1] * 3 + trips[0] * trips[1] * 2


def test_gemm_double_manual_ping_pong_variables():
    k = sample("gemm_double", "manual")
    assert {t.name: t.fixed_addresses for t in k.tiles} == {
        "aMat": {0: 0, 1: 0x10000}, "bMat": {0: 0x20000, 1: 0x40000},
        "aLeft": {0: 0, 1: 0x8000}, "bRight": {0: 0, 1: 0x8000}, "cAcc": {0: 0}}
    assigns = [s for s in ir.walk(k.body) if isinstance(s, ir.Assign)]
    assert [(a.var, str(a.value)) for a in assigns] == [("l1", "0"), ("l0", "0"), ("l0", "(1 - l0)"),
                                                         ("l1", "(1 - l1)")]
    # l0 toggles per K step, continuously across panels and output tiles; l1 per panel.
    ext = [(e["l0"], e["l1"]) for s, e in trace(k) if isinstance(s, ir.Instr) and s.op == "TEXTRACT"][::2]
    assert ext == [(j % 2, (j // 4) % 2) for j in range(16)]
    ext_a = next(i for i in instrs(k) if i.op == "TEXTRACT")
    assert accesses(ext_a) == (["aLeft[l0]"], ["aMat[l1]"])
    assert check_flags_balance(k) == 5 + 16 * 2 + 4 * 3 + 2 * 2


# ---------------------------------------------------------------- reshape_subview


def _alias_root(t: ir.TileDecl, env: dict) -> tuple[str, int, int]:
    """Follow TRESHAPE/TSUBVIEW chains to the base tile: (name, slot, byte offset)."""
    offset = 0
    ref = None
    while t.alias is not None:
        offset += t.alias.offset_bytes.eval(env)
        ref = t.alias.base
        t = ref.tile
    slot = ref.index.eval(env) if ref is not None and ref.index is not None else None
    return t.name, slot, offset


@pytest.mark.parametrize("mode", ["auto", "manual"])
def test_reshape_subview_aliases(mode):
    path = SAMPLES / "reshape_subview" / f"{mode}.cpp"
    k = sample("reshape_subview", mode)
    t = tile_table(k)
    assert t["x"] == ("Vec", "fp32", 16, 128, "RowMajor", 2, 8192)
    assert t["fold"] == t["peak"] == ("Vec", "fp32", 16, 64, "RowMajor", 2, 4096)
    # Alias tiles keep their own capacity shape; only the valid region shrinks.
    assert t["xFlat"][2:4] == (1, 2048) and t["xView"][2:4] == (32, 64)
    assert t["xLeft"][2:4] == (16, 128) and t["xTop"][2:4] == (32, 64)
    assert (k.tile("xLeft").valid_rows, k.tile("xLeft").valid_cols) == (Const(16), Const(64))
    expect = {  # tile: (kind, immediate base, byte offset)
        "xFlat": ("TRESHAPE", "x[(i % 2)]", 0),
        "xLeft": ("TSUBVIEW", "x[(i % 2)]", 0),
        "xRight": ("TSUBVIEW", "x[(i % 2)]", 64 * 4),  # column HALF of a 128-wide row-major tile
        "xView": ("TRESHAPE", "x[(i % 2)]", 0),
        "xTop": ("TSUBVIEW", "xView", 0),
        "xBottom": ("TSUBVIEW", "xView", 16 * 64 * 4),  # row ROWS of the 32 x 64 view
    }
    for name, (kind, base, off) in expect.items():
        a = k.tile(name).alias
        assert (a.kind, str(a.base), a.offset_bytes) == (kind, base, Const(off))
        assert a.loc.line == line_of(path, f"{kind}({name},")
        assert _alias_root(k.tile(name), {"i": 3}) == ("x", 1, off)  # xView itself sits at +0
    assert all(k.tile(n).alias is None for n in ("x", "fold", "peak"))

    body = outline(k.body)[-1][1] if mode == "auto" else outline(k.body)[-7][1]
    defs = [s for s in body if s.startswith(("TRESHAPE", "TSUBVIEW"))]
    assert defs == ["TRESHAPE xFlat <- x[(i % 2)] +0", "TSUBVIEW xLeft <- x[(i % 2)] +0",
                    "TSUBVIEW xRight <- x[(i % 2)] +256", "TRESHAPE xView <- x[(i % 2)] +0",
                    "TSUBVIEW xTop <- xView +0", "TSUBVIEW xBottom <- xView +4096"]
    assert [(i.op, i.pipe, accesses(i)) for i in instrs(k)] == [
        ("TLOAD", "MTE2", (["x[(i % 2)]"], ["gm:gIn"])),
        ("TMULS", "V", (["xFlat"], ["xFlat"])),
        ("TADD", "V", (["fold[(i % 2)]"], ["xLeft", "xRight"])),
        ("TMAX", "V", (["peak[(i % 2)]"], ["xTop", "xBottom"])),
        ("TSTORE", "MTE3", (["gm:gFold"], ["fold[(i % 2)]"])),
        ("TSTORE", "MTE3", (["gm:gPeak"], ["peak[(i % 2)]"])),
    ]
    assert gm(k, "gFold").offset_bytes.eval({"i": 2}) == 2 * 16 * 64 * 4
    if mode == "manual":
        assert k.tile("x").fixed_addresses == {0: 0, 1: 8192}
        assert k.tile("peak").fixed_addresses == {0: 2 * 8192 + 2 * 4096, 1: 2 * 8192 + 3 * 4096}
        assert body.count("barrier V") == 1
        assert check_flags_balance(k) == 6 + 8 * 6


@pytest.mark.parametrize("name", ["vec_add", "softmax", "rmsnorm", "gemm_single", "reshape_subview"])
def test_manual_twin_has_the_auto_tile_program(name):
    auto, manual = sample(name), sample(name, "manual")
    assert [(i.op, i.pipe, accesses(i)) for i in instrs(manual)] == [(i.op, i.pipe, accesses(i)) for i in instrs(auto)]
    assert tile_table(manual) == tile_table(auto)
    assert auto.mode == "auto" and manual.mode == "manual"


def test_samples_cli_ir(capsys):
    rc, out, err = run_cli(capsys, "ir", SAMPLES / "gemm_double" / "auto.cpp")
    assert rc == 0 and err == ""
    assert "MultiBuffered<2> for step = 0; step < 4; step += 1:  (trips 4)" in out
    assert "  cAcc: Acc fp32 128x256 ColMajor, 131072 B  @" in out
    rc, out, err = run_cli(capsys, "ir", SAMPLES / "reshape_subview" / "auto.cpp")
    assert rc == 0 and "= TSUBVIEW(xView, +4096 B)" in out


# ---------------------------------------------------------------- pto-isa shaped kernels


def test_gemm_in_the_shape_of_pto_isa_automode_gemm():
    path = KERNELS / "gemm_automode.cpp"
    k = load(path)
    assert (k.name, k.core, k.mode) == ("gemm_automode", "cube", "auto")
    # 512 x 512 x 512 on 4 cores: 256 x 256 of C per core, base 128 x 64 x 256, 4 K steps per panel.
    assert k.runtime_values == ("block_idx",)
    t = tile_table(k)
    assert t["acc"] == ("Acc", "fp32", 128, 256, "ColMajor", None, 131072)
    assert t["aL0"] == ("Left", "fp16", 128, 64, "RowMajor", 2, 16384)
    assert t["bL0"] == ("Right", "fp16", 64, 256, "RowMajor", 2, 32768)
    assert t["aL1"] == ("Mat", "fp16", 128, 256, "ColMajor", 2, 65536) and k.tile("aL1").per_lane
    assert t["bL1"] == ("Mat", "fp16", 256, 256, "RowMajor", 2, 131072) and k.tile("bL1").per_lane
    assert [(f.var, f.kind, f.trip_count()) for f in loops(k)] == [
        ("mi", "for", 2), ("ni", "for", 1), ("panelCtx", "MultiBuffered", 2), ("stepCtx", "MultiBuffered", 4)]
    # The inner loop of a nested Range is a child of the outer lambda body.
    panel_loop = loops(k)[2]
    assert outline(panel_loop.body)[:2] == ["TLOAD", "TLOAD"] and outline(panel_loop.body)[2][0] == "MB2 for stepCtx 0..4"

    ops = executed_ops(k)
    assert ops.count("TMATMUL<AccPhase::Partial>") == 2 and ops.count("TMATMUL_ACC<AccPhase::Final>") == 2
    assert ops.count("TMATMUL_ACC<AccPhase::Partial>") == 2 * 6 and ops.count("TSTORE<STPhase::Final>") == 2
    lanes = [(e["panelCtx"], s.args[1].value.index.eval(e), s.args[0].value.index.eval(e))
             for s, e in trace(k) if isinstance(s, ir.Instr) and s.op == "TEXTRACT" and e["mi"] == 0][::2]
    assert lanes == [(p, p % 2, st % 2) for p in range(2) for st in range(4)]

    # Pointers set by the `T *&` out-parameters of CoreOffsets: mIdx = b % 2, nIdx = b / 2.
    ga, gb, gout = gm(k, "gA"), gm(k, "gB"), gm(k, "gOut")
    env = {"block_idx": 3, "mi": 1, "ni": 0, "panelCtx": 1}
    assert ga.offset_bytes.eval(env) == (1 * 256 * 512 + 1 * 128 * 512 + 1 * 4 * 64) * 2
    assert gb.offset_bytes.eval(env) == (1 * 256 * 512 + 0 + 1 * 4 * 64) * 2
    assert gout.offset_bytes.eval(env) == (1 * 256 * 512 + 1 * 256 + 1 * 128 * 512) * 4
    # TileShape2D / BaseShape2D: ND for A and C, DN (column major) for B.
    assert consts(ga.shape) == (1, 1, 1, 128, 256) and consts(ga.stride)[3:] == (512, 1)
    assert consts(gb.shape) == (1, 1, 1, 256, 256) and consts(gb.stride)[3:] == (1, 512)
    assert consts(gout.stride)[3:] == (512, 1)
    store = next(i for i in instrs(k) if i.op == "TSTORE")
    assert store.loc.line == line_of(path, "TSTORE<STPhase::Final>(gOut, acc);")
    assert [v.line for v in store.via] == [line_of(path, "GemmCore<float, half,"), line_of(path, "WriteBack<TOut")]


def test_add_in_the_shape_of_pto_isa_auto_add_demo():
    path = KERNELS / "add_demo.cpp"
    k = load(path)
    assert (k.name, k.core) == ("add_custom", "vec")
    assert [(p.name, p.is_pointer) for p in k.params] == [("x", True), ("y", True), ("z", True), ("totalLength", False)]
    assert k.runtime_values == ("block_idx", "totalLength")
    # 20 x 2048 half on 20 cores: one row per core, cut into 2 x 2 slices of 512.
    assert tile_table(k) == {n: ("Vec", "fp16", 1, 512, "RowMajor", 2, 1024) for n in ("xTiles", "yTiles", "zTiles")}
    assert outline(k.body) == ["pingpong = 0", ("for i 0..4", [
        "TLOAD", "TLOAD", "TADD", "TSTORE", "pingpong = (1 - pingpong)"])]  # TASSIGN of a view: no statement
    assert accesses(instrs(k)[0]) == (["xTiles[pingpong]"], ["gm:xGlobal#2"])
    assert accesses(instrs(k)[3]) == (["gm:zGlobal#2"], ["zTiles[pingpong]"])
    assert accesses(instrs(k)[2]) == (["zTiles[pingpong]"], ["xTiles[pingpong]", "yTiles[pingpong]"])
    slots = [s.args[0].value.index.eval(e) for s, e in trace(k) if isinstance(s, ir.Instr) and s.op == "TADD"]
    assert slots == [0, 1, 0, 1]
    # The views are declared at x/y/z and moved by TASSIGN(view, x + offset) in the loop.
    assert gm(k, "xGlobal").offset_bytes == Const(0)
    g = gm(k, "xGlobal#2")
    assert (g.param, g.loc.line) == ("x", line_of(KERNELS / "add_demo.cpp", "TASSIGN(xGlobal, x + offset);"))
    assert consts(g.shape) == (1, 1, 1, 1, 512) and consts(g.stride) == (1, 1, 1, 2048, 1)
    assert g.offset_bytes.eval({"block_idx": 3, "totalLength": 20 * 2048, "i": 2}) == (3 * 2048 + 2 * 512) * 2
    assert gm(k, "zGlobal#2").param == "z"


def test_nested_range_phases_and_typed_inner_invoker():
    k = load(KERNELS / "nested_phases.cpp")
    assert [(f.var, f.kind, f.buffers, f.trip_count()) for f in loops(k)] == [
        ("outer", "MultiBuffered", 2, 5), ("ctx", "MultiBuffered", 2, 3)]
    assert tile_table(k) == {"x": ("Vec", "fp32", 16, 64, "RowMajor", 2, 4096)}
    # outer: FirstK = 1, LastK = 1; inner: FirstK = 0, LastK = 1.
    runs = [(e["outer"], e["ctx"], s.op) for s, e in trace(k) if isinstance(s, ir.Instr) and s.op in ("TMULS", "TADDS")]
    assert [(o, c) for o, c, op in runs if op == "TMULS"] == [(0, c) for c in range(3)]
    assert [(o, c) for o, c, op in runs if op == "TADDS"] == [(o, 2) for o in range(5)]
    assert gm(k, "src").offset_bytes.eval({"outer": 2, "ctx": 1}) == (2 * 3 + 1) * 1024 * 4


def test_phase_as_a_template_argument_is_a_constant_of_each_phase(tmp_path, capsys):
    path = KERNELS / "phase_template_arg.cpp"
    k = load(path)
    # Range<5>, FirstK = 0, LastK = 2: the main phase [0, 3), the epilogue [3, 5), one loop
    # each, whose body calls accumulate<Phase::Main> and accumulate<Phase::Epilogue>.
    assert [(f.var, f.kind, str(f.start), str(f.stop), f.phase) for f in loops(k)] == [
        ("ctx", "MultiBuffered", "0", "3", "Phase::Main"), ("ctx", "MultiBuffered", "3", "5", "Phase::Epilogue")]
    calls = [b.instance.args[0] for b in ir.walk(k.body) if isinstance(b, ir.Block) and b.instance is not None]
    assert calls == ["Phase::Main", "Phase::Epilogue"]
    ops = [(s.op, e["ctx"]) for s, e in trace(k) if isinstance(s, ir.Instr) and s.op in ("TLOAD", "TSTORE")]
    assert ops == [("TLOAD", 0), ("TLOAD", 1), ("TLOAD", 2), ("TLOAD", 3), ("TSTORE", 3), ("TLOAD", 4), ("TSTORE", 4)]
    assert gm(k, "src#2").offset_bytes.eval({"ctx": 4}) == 4 * 16 * 64 * 4
    # The lane tile `part` is reused from the main phase's last iterations by the epilogue's
    # first: the lines between the two phases (which run from the one `mb.loop(...)`) are
    # written inside the body on the iteration they belong to, the same in both copies; the
    # main phase's own rotating flag is not in the epilogue's copy, so the rewrite stops there.
    out = tmp_path / "out.cpp"
    rc, _, err = run_cli(capsys, "auto2manual", path, "-o", out)
    assert rc == 2 and not out.exists() and "Traceback" not in err
    assert f"{where(path, 'accumulate<ctx.phase>')}: error: this statement is in a helper inlined at several " \
        "call sites" in err, err
    assert "the copy called at Phase::Main loop at" in err and "if (ctx.iter == 2) wait_flag(PIPE_V, PIPE_MTE2" in err


# ---------------------------------------------------------------- constructs


def test_constructs_kernel():
    path = KERNELS / "constructs.cpp"
    k = load(path)
    assert k.runtime_values == ("rowBlocks",)
    assert [(p.name, p.is_pointer) for p in k.params][-1] == ("rowBlocks", False)
    r, kk = loops(k)
    # Run-time bound from the kernel argument; INNER = CeilDiv(7, 2) under `#pragma unroll`.
    assert (r.var, r.stop, r.trip_count(), r.trip_count({"rowBlocks": 5})) == ("r", Var("rowBlocks"), None, 5)
    assert (kk.var, kk.trip_count()) == ("k", 4)
    half = 32 * 4  # TSUBVIEW at column COLS / 2 of a row-major fp32 tile
    assert outline(k.body) == ["pp = 0", ("for r 0..rowBlocks", [("for k 0..4", [
        ("if (k == 0)", ["TEXPANDS"]),
        "TLOAD", "TMOV",
        "TRESHAPE flat <- stage[pp] +0", "TADDS", f"TSUBVIEW right <- stage[pp] +{half}", "TADD",
        "pp = (1 - pp)",
        ("if (k == 3)", ["TSTORE"]),
    ])])]
    ins = {i.op: i for i in instrs(k)}
    assert accesses(ins["TEXPANDS"]) == (["acc[0]"], [])  # constant index
    assert accesses(ins["TLOAD"]) == (["buf[(k % 2)]"], ["gm:src"])
    assert (ins["TMOV"].pipe, accesses(ins["TMOV"])) == ("V", (["stage[pp]"], ["buf[(k % 2)]"]))
    assert accesses(ins["TADDS"]) == (["flat"], ["flat"])
    assert accesses(ins["TADD"]) == (["acc[0]"], ["acc[0]", "right"])
    # Helper instructions: located in foldInto, via the entry call and the call in the loop.
    assert ins["TADD"].loc.line == line_of(path, "TADD(acc, acc, right);")
    assert [v.line for v in ins["TADD"].via] == [line_of(path, "constructsKernel<ROWS"), line_of(path, "foldInto(acc[0]")]
    alias_def = next(s for s in ir.walk(k.body) if isinstance(s, ir.AliasDef) and s.kind == "TSUBVIEW")
    assert [v.line for v in alias_def.via] == [line_of(path, "constructsKernel<ROWS"), line_of(path, "foldInto(acc[0]")]
    assert k.tile("flat").alias.base.tile is k.tile("stage") and k.tile("flat").nbytes == 8 * 64 * 4
    # first/last-iteration guards and the ping-pong variable, executed for 2 row blocks.
    tr = [(s.op, e["r"], e["k"], e["pp"]) for s, e in trace(k, {"rowBlocks": 2}) if isinstance(s, ir.Instr)]
    assert [(r_, k_) for op, r_, k_, _ in tr if op == "TEXPANDS"] == [(0, 0), (1, 0)]
    assert [(r_, k_) for op, r_, k_, _ in tr if op == "TSTORE"] == [(0, 3), (1, 3)]
    assert [pp for op, _, _, pp in tr if op == "TMOV"] == [j % 2 for j in range(8)]
    dst = gm(k, "dst")
    assert dst.offset_bytes.eval({"r": 1}) == 8 * 64 * 4 * 4
    assert consts(gm(k, "src").stride) == (1, 1, 1, 256, 1)


def test_dynamic_shapes():
    k = load(KERNELS / "dynamic_shapes.cpp")
    assert (str(k.tile("a").valid_rows), str(k.tile("a").valid_cols)) == ("rows", "64")
    assert (k.tile("b").valid_rows, k.tile("b").valid_cols) == (Const(8), Const(8))
    assert k.tile("a").nbytes == k.tile("b").nbytes == 16 * 64 * 4  # capacity, not the valid region
    assert text_at(k.tile("a").loc) == text_at(k.tile("b").loc) == "DynTile a(rows, 64), b(8, 8);"
    # Constructor values fill the -1 entries of Shape / Stride in order.
    env = {"rows": 5, "ld": 1000}
    shapes = {g.name: ([e.eval(env) for e in g.shape], [e.eval(env) for e in g.stride]) for g in k.gm_tensors}
    assert shapes == {
        "src": ([1, 1, 1, 5, 64], [1, 1, 1, 1000, 1]),
        "part": ([1, 1, 1, 8, 8], [1, 1, 1, 1000, 1]),
        "dst": ([1, 1, 1, 5, 64], [1, 1, 1, 1000, 1]),
    }
    assert gm(k, "part").offset_bytes == Const(64 * 4)
    assert k.runtime_values == ("ld", "rows")


# ---------------------------------------------------------------- options: arch, core, -D, entry, -I, -p


def test_arch_and_core_selection():
    path = KERNELS / "mixed_core.cpp"
    with pytest.raises(PtoError, match="choose one with --core"):
        load(path)
    vec = load(path, core="vec")
    assert vec.core == "vec" and tile_table(vec) == {"x": ("Vec", "fp32", 16, 64, "RowMajor", None, 4096)}
    vec5 = load(path, core="vec", arch="a5")  # __CCE_AICORE__ == 310 picks VEC_COLS = 128
    assert vec5.arch == "a5" and vec5.tile("x").cols == 128
    cube = load(path, core="cube")
    assert [i.pipe for i in instrs(cube)] == ["MTE2", "MTE2", "MTE1", "MTE1", "M", "FIX"]
    # TileLeft is row major on a2a3 and column major on a5.
    assert cube.tile("aLeft").blayout == "RowMajor" and load(path, core="cube", arch="a5").tile("aLeft").blayout == "ColMajor"
    # The demo add kernel is guarded for a2a3 only.
    assert load(KERNELS / "add_demo.cpp").core == "vec"
    with pytest.raises(PtoError, match="every kernel in the file .'add_custom'. is excluded by the preprocessor"):
        load(KERNELS / "add_demo.cpp", arch="a5")


def test_core_of_an_unguarded_kernel():
    k = load(KERNELS / "cube_unguarded.cpp")
    assert k.core == "cube"
    assert [i.pipe for i in instrs(k)] == ["MTE2", "MTE2", "MTE1", "MTE1", "M", "FIX"]
    assert tile_table(k)["acc"] == ("Acc", "fp32", 16, 16, "ColMajor", None, 1024)
    assert load(KERNELS / "multi_entry.cpp", entry="exp_kernel").core == "vec"


def test_entry_selection(capsys):
    path = KERNELS / "multi_entry.cpp"
    assert executed_ops(load(path, entry="exp_kernel")) == ["TLOAD", "TEXP", "TSTORE"]
    assert executed_ops(load(path, entry="abs_kernel")) == ["TLOAD", "TABS", "TSTORE"]
    rc, out, err = run_cli(capsys, "ir", path, "--entry", "abs_kernel")
    assert rc == 0 and out.startswith("kernel abs_kernel ") and "TABS(out x, x)  [V]" in out
    rc, out, err = run_cli(capsys, "ir", path, "--entry", "nope")
    assert rc == 2 and out == "" and f"{path}:1:1: error: no kernel function named 'nope'" in err


def test_defines_on_the_command_line(capsys):
    rc, out, _err = run_cli(capsys, "ir", SAMPLES / "gemm_double" / "auto.cpp",
                           "-DGEMM_M=1536", "-DGEMM_K=256", "-DGEMM_N=1024")
    assert rc == 0
    assert "for m = 0; m < 12; m += 1:  (trips 12)" in out and "for n = 0; n < 4; n += 1:  (trips 4)" in out
    assert "MultiBuffered<2> for panel = 0; panel < 1; panel += 1:  (trips 1)" in out


def test_user_header_with_include_dir(capsys):
    path = KERNELS / "uses_header.cpp"
    header = KERNELS / "include" / "tile_helpers.hpp"
    k = load(path, includes=[KERNELS / "include"])
    assert outline(k.body) == [("for i 0..3", ["TLOAD", "TMUL", "TADDS", "TSTORE"])]
    mul = instrs(k)[1]
    assert accesses(mul) == (["y"], ["x[(i % 2)]", "x[(i % 2)]"])
    assert Path(mul.loc.file).resolve() == header.resolve() and mul.loc.line == line_of(header, "pto::TMUL(")
    assert mul.loc.file.endswith("tile_helpers.hpp") and [v.line for v in mul.via] == [line_of(path, "squarePlusOne(y")]
    rc, out, err = run_cli(capsys, "ir", path)  # without -I the header is not found
    assert rc == 2 and f"{where(path, chr(34) + 'tile_helpers.hpp')}: error: 'tile_helpers.hpp' file not found" in err
    rc, out, err = run_cli(capsys, "ir", path, "-I", KERNELS / "include")
    assert rc == 0 and "TMUL(out y, x[(i % 2)], x[(i % 2)])  [V]" in out


def test_build_dir_compile_commands(tmp_path, capsys):
    db = [
        {"directory": str(KERNELS), "file": "uses_header.cpp",
         "arguments": ["clang++", "-std=c++17", "-Iinclude", "-c", "uses_header.cpp"]},
        {"directory": str(SAMPLES / "gemm_double"), "file": "auto.cpp",
         "command": "clang++ -DGEMM_M=1536 -D GEMM_K=256 -DGEMM_N=1024 -c auto.cpp"},
    ]
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    k = load_kernel(KERNELS / "uses_header.cpp", FrontendOptions(build_dir=str(tmp_path)))
    assert [i.op for i in instrs(k)] == ["TLOAD", "TMUL", "TADDS", "TSTORE"]
    rc, out, err = run_cli(capsys, "ir", SAMPLES / "gemm_double" / "auto.cpp", "-p", tmp_path)
    assert rc == 0 and "(trips 12)" in out and "panel < 1;" in out
    # Command-line -D wins over the database.
    rc, out, err = run_cli(capsys, "ir", SAMPLES / "gemm_double" / "auto.cpp", "-p", tmp_path, "-DGEMM_M=256")
    assert rc == 0 and "for m = 0; m < 2;" in out
    rc, out, err = run_cli(capsys, "ir", SAMPLES / "vec_add" / "auto.cpp", "-p", tmp_path)
    assert rc == 2 and "is not in" in err and "compile_commands.json" in err


# ---------------------------------------------------------------- bad input


def test_guards_hide_every_instruction(capsys):
    path = KERNELS / "add_demo.cpp"  # the whole file is a2a3-vector only
    rc, out, err = run_cli(capsys, "ir", path, "--arch", "a5")
    assert (rc, out) == (2, "")
    guard = line_of(path, "#if __CCE_AICORE__ == 220")
    # `ir` reads a file as a manual build first (no __PTO_AUTO__): that is the parse that finds nothing.
    assert err.splitlines() == [
        (f"{path}:{guard}:1: error: every kernel in the file ('add_custom') is excluded by the preprocessor for "
        "--arch a5 (core vec)"),
        (f"{where(path, 'add_custom(')}: note: __global__ function 'add_custom' is inside "
        f"'#if __CCE_AICORE__ == 220 && defined(__DAV_C220_VEC__)' (line {guard})"),
        ("ptorewrite: note: --arch a5 (core vec) defines __CCE_AICORE__=310, __NPU_ARCH__=3101, __DAV_C310_VEC__=1, "
        "__DAV_VEC__=1; choose another with --arch, --core or -D")]
    # auto2manual reads it as the AUTO-mode compiler does.
    rc, out, err = run_cli(capsys, "auto2manual", path, "--arch", "a5")
    assert (rc, out) == (2, "") and err.splitlines()[-1].endswith(
        "__DAV_VEC__=1, __PTO_AUTO__=1; choose another with --arch, --core or -D")
    path = SAMPLES / "gemm_single" / "auto.cpp"  # entry visible, body guarded for the cube core
    rc, out, err = run_cli(capsys, "ir", path, "--core", "vec")
    assert (rc, out) == (2, "")
    assert err.splitlines()[:2] == [
        (f"{where(path, 'gemm_single(')}: error: no PTO instructions found in kernel 'gemm_single' for --arch a2a3 "
        "(core vec)"),
        (f"{path}:{line_of(path, '#if defined(__DAV_CUBE__)')}:1: note: skipped by the preprocessor: "
        "#if defined(__DAV_CUBE__)")]


def test_both_cores_need_core_option(capsys):
    path = KERNELS / "mixed_core.cpp"
    rc, _out, err = run_cli(capsys, "ir", path)
    assert rc == 2 and f"{path}:1:1: error: the kernel has code for both the vector and the cube core" in err


def test_syntax_error(capsys):
    path = BAD / "syntax_error.cpp"
    rc, out, err = run_cli(capsys, "ir", path)
    n = line_of(path, "GmT src(in)")
    col = len(path.read_text().splitlines()[n - 1].rstrip()) + 1  # just after `)`
    assert rc == 2 and out == ""
    assert err.startswith(f"{path}:{n}:{col}: error: expected ';'")


@pytest.mark.parametrize("name,message", [
    ("unknown_in_template.cpp", "use of undeclared identifier 'TFOOBAR'"),  # clang, at instantiation
    ("unknown_plain.cpp", "use of undeclared identifier 'TFOOBAR'"),
    ("unknown_declared.cpp", "unknown PTO instruction 'TFOOBAR'"),  # clang accepts, the front end does not
])
def test_unknown_instruction(capsys, name, message):
    path = BAD / name
    rc, out, err = run_cli(capsys, "ir", path)
    assert rc == 2 and out == ""
    assert err.startswith(f"{where(path, 'TFOOBAR(b, a);')}: error: {message}")


@pytest.mark.parametrize("name,text,message", [
    ("macro_instrs.cpp", "LOAD_AND_SCALE(x, src", "macro 'LOAD_AND_SCALE' expands to PTO statements"),
    ("recursion.cpp", "accumulate<N>(acc, x, depth - 1);", "recursion is not supported ('accumulate' calls itself)"),
    ("goto.cpp", "goto done;", "goto is not supported"),
    ("do_loop.cpp", "do {", "do loops are not supported"),
    ("pointer_in_loop.cpp", "p = out;", "GM pointer 'p' is pointed at another kernel argument inside a loop"),
    ("view_used_before_tassign.cpp", "TASSIGN(src,", "GlobalTensor 'src' is used in this loop before its TASSIGN"),
    ("template_entry.cpp", "TemplatedEntry(", "the kernel template 'TemplatedEntry' is not instantiated in this file"),
    ("view_used_after_loop.cpp", "dst, x); // after", "GlobalTensor 'dst' is re-pointed by the TASSIGN at line 9"),
    ("ffts_direct.cpp", "getFFTSMsg(0x0, 1)", "'ffts_cross_core_sync' with ffts mode 0"),
    ("tsync_cvid.cpp", "pto::TSYNC_CVID(", "pto::TSYNC_CVID is not modelled: the cube core stores a slot number"),
])
def test_unsupported_constructs(capsys, name, text, message):
    path = BAD / name
    rc, out, err = run_cli(capsys, "ir", path)
    assert rc == 2 and out == ""
    assert err.startswith(f"{where(path, text)}: error: {message}")
    with pytest.raises(PtoError) as e:
        load_kernel(path)
    assert len(e.value.diagnostics) == 1 and e.value.diagnostics[0].loc.line == line_of(path, text)


@pytest.mark.parametrize("name, text, what, command", [
    *(("cross_core.cpp", "TPUSH(x, dst);", "TPUSH", c) for c in ("ir", "check", "auto2manual")),
])
def test_cross_core_transfers_stop_with_a_located_error(capsys, tmp_path, name, text, what, command):
    path = BAD / name
    extra = ["-o", str(tmp_path / "out.cpp")] if command == "auto2manual" else []
    rc, out, err = run_cli(capsys, command, path, *extra)
    assert rc == 2 and out == "" and not (tmp_path / "out.cpp").exists()
    assert err.startswith(f"{where(path, text)}: error: cross-core TPUSH/TPOP are not supported yet ('{what}' here)")


def test_a_flag_pair_on_one_core_type_only_stops_a_rewrite_at_its_signal(capsys, tmp_path):
    # The flag pair is read (a2a3 ffts flags); the file has code for the vector core only, so a
    # rewrite cannot plan the core it signals.
    path = BAD / "cross_core_objects.cpp"
    rc, out, err = run_cli(capsys, "auto2manual", path, "-o", tmp_path / "out.cpp")
    assert rc == 2 and out == "" and not (tmp_path / "out.cpp").exists()
    assert err.startswith(f"{where(path, 'ready.record();')}: error: the vec core signals the other cores of its "
                          "cluster"), err


def test_missing_file(capsys, tmp_path):
    path = tmp_path / "nowhere.cpp"
    rc, out, err = run_cli(capsys, "ir", path)
    assert (rc, out) == (2, "")
    assert err == f"ptorewrite: error: no such file: {path}\n"
