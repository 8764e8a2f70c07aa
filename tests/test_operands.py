"""Operand checks: an instruction given operands it cannot take is a located error naming the
operand, what it is, and what the instruction needs; `ir`, `auto2manual`, `check` and `verify`
all report it, and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptorewrite.cli import main

HEAD = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using V = Tile<TileType::Vec, float, 8, 64>;
using H = Tile<TileType::Vec, half, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
using GmH = GlobalTensor<half, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in, __gm__ half *hin)
{
    GmT g(in);
    GmT o(out);
%s
}
"""

# name -> (body, line:col of the error, the message)
INVALID = {
    "TMATMUL on Vec tiles": (
        "    V a;\n    V b;\n    V c;\n    TLOAD(a, g);\n    TLOAD(b, g);\n    TMATMUL(c, a, b);\n    TSTORE(o, c);",
        "16:5", "TMATMUL operand 1 'c' is a Vec fp32 8x64 tile; TMATMUL needs an Acc tile there"),
    "TADD on Left tiles": (
        ("    using L = TileLeft<half, 16, 16>;\n    L a;\n    L b;\n    L c;\n    TADD(c, a, b);\n    V v;\n"
        "    TSTORE(o, v);"),
        "15:5", "TADD operand 1 'c' is a Left fp16 16x16 tile; TADD needs a Vec tile there"),
    "mixed element types": (
        ("    GmH gh(hin);\n    V a;\n    H b;\n    V c;\n    TLOAD(a, g);\n    TLOAD(b, gh);\n    TADD(c, a, b);\n"
        "    TSTORE(o, c);"),
        "17:5", "TADD operand 3 'b' has element type fp16 but operand 1 'c' has fp32; TADD needs one element type"),
    "TLOAD of another element size": (
        "    H b;\n    TLOAD(b, g);\n    GmH oh((__gm__ half *)out);\n    TSTORE(oh, b);",
        "12:5", ("TLOAD tile 'b' holds fp16 (2 B elements) but GM tensor 'g' holds fp32 (4 B); TLOAD copies bytes "
                "without converting and needs elements of one size")),
    "row not a whole number of 32-byte blocks": (
        "    using R = Tile<TileType::Vec, float, 8, 3>;\n    R a;\n    TLOAD(a, g);\n    TSTORE(o, a);",
        "12:5", ("tile 'a' (Vec fp32 8x3, RowMajor): a row of 3 x 4 B = 12 B is not a multiple of the 32-byte "
                "block")),
    "TSUBVIEW changing the block layout": (
        ("    V a;\n    using S = Tile<TileType::Vec, float, 8, 64, BLayout::ColMajor>;\n    S s;\n    TLOAD(a, g);\n"
        "    TSUBVIEW(s, a, 0, 0);\n    TADDS(s, s, 1.0f);\n    TSTORE(o, a);"),
        "15:5", ("TSUBVIEW destination 's' is ColMajor but its source 'a' is RowMajor; a sub-view keeps its base "
                "tile's block layout")),
    "valid shapes that differ": (
        ("    using S = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 4, 64>;\n    V a;\n    S s;\n"
        "    TLOAD(a, g);\n    TLOAD(s, g);\n    TADD(a, a, s);\n    TSTORE(o, a);"),
        "16:5", "TADD operand 3 's' has valid shape 4x64 but operand 1 'a' has 8x64"),
    "matmul element types": (
        ("    using L = TileLeft<half, 16, 16>;\n    using R = TileRight<float, 16, 16>;\n"
        "    using C = TileAcc<float, 16, 16>;\n    using M = Tile<TileType::Mat, half, 16, 16>;\n"
        "    using MF = Tile<TileType::Mat, float, 16, 16>;\n    M ma;\n    MF mb;\n    L a;\n    R b;\n    C c;\n"
        "    GmH gh(hin);\n    TLOAD(ma, gh);\n    TLOAD(mb, g);\n    TMOV(a, ma);\n    TMOV(b, mb);\n"
        "    TMATMUL(c, a, b);\n    TSTORE(o, c);"),
        "26:5", "TMATMUL multiplies 'a' (fp16) by 'b' (fp32) into 'c' (fp32); the cube unit on a2a3 takes "),
}


@pytest.mark.parametrize("name", sorted(INVALID))
@pytest.mark.parametrize("command", ["ir", "auto2manual", "verify"])
def test_invalid_operands_are_located_errors(capsys, tmp_path, name, command):
    body, where, message = INVALID[name]
    src = tmp_path / "k.cpp"
    src.write_text(HEAD % body)
    argv = [command, str(src)] + (["-o", str(tmp_path / "out.cpp")] if command == "auto2manual" else [])
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2 and not out
    assert f"{src}:{where}: error: {message}" in err, err
    assert "Traceback" not in err and sorted(p.name for p in tmp_path.iterdir()) == ["k.cpp"]


MANUAL = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using V = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in)
{
    V a;
    TASSIGN(a, %s);
    GmT g(in);
    GmT o(out);
    TLOAD(a, g);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(o, a);
}
"""


@pytest.mark.parametrize("address, message", [
    ("0x10", "TASSIGN places 'a' at 0x10, which is not a multiple of 32: Vec tiles (UB) need 32-byte alignment"),
    ("0x2FC00", "TASSIGN places 'a' (2048 B) at 0x2fc00, ending at 0x30400, outside UB (196608 B)"),
])
def test_misplaced_tassign(capsys, tmp_path, address, message):
    """`check` reports a misplaced tile as a finding of the kernel (exit 1); `ir` refuses it."""
    src = tmp_path / "m.cpp"
    src.write_text(MANUAL % address)
    status = main(["check", str(src)])
    out, err = capsys.readouterr()
    assert status == 1 and f"{src}:8:5: error: {message}" in err and "1 misplaced tile(s), 0 race(s)" in out
    status = main(["ir", str(src)])
    err = capsys.readouterr().err
    assert status == 2 and f"{src}:8:5: error: {message}" in err


def test_a_runtime_tassign_address_is_checked_when_it_runs(capsys, tmp_path):
    src = tmp_path / "m.cpp"
    src.write_text((MANUAL % "base").replace("__gm__ float *in)", "__gm__ float *in, int base)"))
    assert main(["check", str(src), "--set", "base=64"]) == 0
    capsys.readouterr()
    assert main(["check", str(src), "--set", "base=8"]) == 1  # a finding of the kernel, not a refusal
    assert f"{src}:8:5: error: TASSIGN places 'a' at 0x8, which is not a multiple of 32" in capsys.readouterr().err
    assert main(["simulate", str(src), "--set", "base=8"]) == 2
    assert f"{src}:8:5: error: TASSIGN places 'a' at 0x8, which is not a multiple of 32" in capsys.readouterr().err


def test_valid_kernels_pass(capsys, tmp_path):
    src = tmp_path / "m.cpp"
    src.write_text(MANUAL % "0x800")
    assert main(["check", str(src)]) == 0


# A sub-view of the 4 rows after `a` (8x64 fp32, 2048 B): rows 6..9, so 512 B past its end.
PAST_END = ("    V a;\n    using S = Tile<TileType::Vec, float, 4, 64>;\n    S s;\n    TLOAD(a, g);\n"
            "    TSUBVIEW(s, a, 6, 0);\n    TADDS(s, s, 1.0f);\n    TSTORE(o, a);")


def test_auto_subview_past_its_base_tile_reserves_the_bytes(capsys, tmp_path):
    """AUTO mode aliases by byte offset: the base tile's place grows to hold the view, with a warning."""
    src = tmp_path / "k.cpp"
    src.write_text(HEAD % PAST_END)
    assert main(["ir", str(src)]) == 0
    out, err = capsys.readouterr()
    assert f"{src}:15:5: warning: TSUBVIEW 's' reaches 512 B past its base tile 'a' (2048 B); the tile's place " \
           "reserves 2560 B" in err
    assert "a: Vec fp32 8x64 RowMajor, 2560 B" in out
    manual = tmp_path / "m.cpp"
    assert main(["auto2manual", str(src), "-o", str(manual)]) == 0
    capsys.readouterr()
    assert main(["verify", str(src), str(manual)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out
    # The next tile the plan places starts after the 2560 reserved bytes, not after 2048.
    two = (HEAD % (PAST_END + "\n    V b;\n    TLOAD(b, g);\n    TADDS(b, b, 2.0f);\n    TSTORE(o, b);"))
    src.write_text(two.replace("    TSTORE(o, a);\n    V b;", "    V b;").replace(
        "TSTORE(o, b);", "TSTORE(o, b);\n    TSTORE(o, a);"))
    assert main(["auto2manual", str(src), "-o", str(manual)]) == 0
    capsys.readouterr()
    text = manual.read_text()
    assert "TASSIGN(a, 0x0);" in text and "TASSIGN(b, 0xa00);" in text
    assert main(["verify", str(src), str(manual)]) == 0


def test_manual_subview_may_name_any_bytes_of_the_buffer(capsys, tmp_path):
    """Manual mode: TSUBVIEW is `src.data() + offset`; past the base tile is allowed, past the
    buffer is an error when it runs."""
    src = tmp_path / "m.cpp"
    body = (MANUAL % "0x800").replace("    TLOAD(a, g);\n", "    TLOAD(a, g);\n    using S = Tile<TileType::Vec, "
                                      "float, 4, 64>;\n    S s;\n    TSUBVIEW(s, a, ROW, 0);\n")
    src.write_text(body.replace("ROW", "6"))
    assert main(["check", str(src)]) == 0
    capsys.readouterr()
    src.write_text((MANUAL % "0x2F800").replace("    TLOAD(a, g);\n", "    TLOAD(a, g);\n    using S = Tile<"
                                                "TileType::Vec, float, 4, 64>;\n    S s;\n    TSUBVIEW(s, a, 8, 0);\n"))
    assert main(["check", str(src)]) == 2
    assert "error: TSUBVIEW 's' starts at byte 2048 of 'a', at 0x30000, outside UB (196608 B)" in \
        capsys.readouterr().err


# ---------------------------------------------------------------- valid shapes past the capacity

SCRATCH_KERNEL = Path(__file__).parent / "kernels" / "shapes" / "scratch_valid_shapes.cpp"


def test_a_constructor_valid_shape_matters_only_where_an_instruction_uses_it(capsys):
    """A scratch tile's valid shape is ignored (16x16 in a 16x1 tile) and an empty region (8x0
    in a 1x8 tile) touches nothing; the row broadcast uses 512 B of its scratch, past the 64 B
    the tile holds: a tile loaded at byte 256 of that reach races with it, one at 512 does not."""
    assert main(["check", str(SCRATCH_KERNEL)]) == 1
    out, err = capsys.readouterr()
    assert "scratch_valid_shapes<256>: 1 race(s), 0 flag problem(s)" in out
    assert "scratch_valid_shapes<512>: 0 race(s), 0 flag problem(s)" in out
    # The broadcast writes its scratch before it reads it back (a2a3 drains the vector pipe between).
    assert ":49:5: error: data race (WAW) on UB bytes [0x1100, 0x1200): TROWEXPANDADD [V] writes tmp while TLOAD " \
           "[MTE2] at 48:5 writes spill" in err
    # a5's row broadcast ignores its scratch: only the scratch tile's own bytes are counted.
    assert main(["check", "--arch", "a5", str(SCRATCH_KERNEL)]) == 0


def test_a_data_operand_past_its_capacity_is_an_error_where_it_is_used(capsys, tmp_path):
    src = tmp_path / "m.cpp"
    src.write_text((MANUAL % "0x800").replace("V a;", "Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1> "
                                                     "a(rows, 64);")
                   .replace("__gm__ float *in)", "__gm__ float *in, int rows)"))
    assert main(["check", str(src), "--set", "rows=8"]) == 0
    assert main(["check", str(src), "--set", "rows=0"]) == 0  # nothing to copy
    capsys.readouterr()
    assert main(["check", str(src), "--set", "rows=9"]) == 2
    assert f"{src}:11:5: error: valid shape 9x64 of 'a' exceeds its 8x64 capacity" in capsys.readouterr().err


def test_a_static_valid_shape_past_the_capacity_is_refused(capsys, tmp_path):
    src = tmp_path / "m.cpp"
    src.write_text((MANUAL % "0x800").replace("Tile<TileType::Vec, float, 8, 64>",
                                              "Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 9, 64>"))
    assert main(["check", str(src)]) == 2
    assert f"{src}:7:7: error: tile type 'Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 9, 64>' has 9 " \
           "valid rows but room for 8; its valid shape must fit the tile" in capsys.readouterr().err


UB_TO_L1 = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using V = Tile<TileType::Vec, half, 16, 16>;
using M = Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512>;
using G = GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
extern "C" __global__ AICORE void k(__gm__ half *in)
{
    V v;
    M m;
    TASSIGN(v, 0x0);
    TASSIGN(m, 0x0);
    G g(in);
    TLOAD(v, g);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TMOV(m, v);
}
"""


def test_a_ub_to_l1_move_runs_on_the_store_engine_where_there_is_one(capsys, tmp_path):
    """a5 copies a Vec tile into L1 on MTE3 (the MTE2 -> MTE3 flag orders it after the load);
    a2a3 has no such path."""
    src = tmp_path / "m.cpp"
    src.write_text(UB_TO_L1)
    assert main(["ir", "--arch", "a5", str(src)]) == 0
    assert "TMOV(out m, v)  [MTE3]" in capsys.readouterr().out
    assert main(["check", "--arch", "a5", str(src)]) == 0
    capsys.readouterr()
    assert main(["check", str(src)]) == 2
    assert f"{src}:16:5: error: TMOV from a Vec tile to a Mat tile is not supported" in capsys.readouterr().err


def test_packed_4bit_tiles_are_sized_as_pto_isa_sizes_them(capsys):
    """A float4_e2m1x2_t column is one byte to pto-isa's checks and vector paths: a 16 x 32 tile has
    32-byte rows, TRESHAPE to a 16 x 32 byte tile is the same size, and `check` counts every access
    as the whole 512 B (with a warning): the unordered load and store race on them."""
    path = Path(__file__).parent / "kernels" / "shapes" / "packed_tiles.cpp"
    assert main(["check", "--arch", "a5", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "packed_tiles<true>: 0 race(s), 0 flag problem(s) (2 instructions and 2 syncs issued)" in out
    assert "packed_tiles<false>: 1 race(s)" in out
    assert ":17:5: warning: tile 'codes' holds packed fp4_e2m1 values: every access counts as touching its whole " \
           "512 B" in err
    assert ":29:5: error: data race (RAW) on UB bytes [0x0, 0x200): TSTORE [MTE3] reads bytes while TLOAD" in err
    assert main(["simulate", "--arch", "a5", "--entry", "packed_tiles<true>", str(path)]) == 2
    assert "packed fp4_e2m1 tiles are not supported by the emulator" in capsys.readouterr().err
