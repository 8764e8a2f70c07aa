"""Operand checks: an instruction given operands it cannot take is a located error naming the
operand, what it is, and what the instruction needs; `ir`, `auto2manual`, `check` and `verify`
all report it, and nothing is written."""

from __future__ import annotations

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
    "TSUBVIEW outside its base tile": (
        ("    V a;\n    using S = Tile<TileType::Vec, float, 4, 64>;\n    S s;\n    TLOAD(a, g);\n"
        "    TSUBVIEW(s, a, 6, 0);\n    TADDS(s, s, 1.0f);\n    TSTORE(o, a);"),
        "15:5", ("TSUBVIEW 's' (4x64 valid of 4x64 fp32) at byte 1536 of 'a' (2048 B) reaches byte 2560, outside its "
                "base tile")),
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
def test_check_refuses_misplaced_tassign(capsys, tmp_path, address, message):
    src = tmp_path / "m.cpp"
    src.write_text(MANUAL % address)
    status = main(["check", str(src)])
    err = capsys.readouterr().err
    assert status == 2 and f"{src}:8:5: error: {message}" in err


def test_a_runtime_tassign_address_is_checked_when_it_runs(capsys, tmp_path):
    src = tmp_path / "m.cpp"
    src.write_text((MANUAL % "base").replace("__gm__ float *in)", "__gm__ float *in, int base)"))
    assert main(["check", str(src), "--set", "base=64"]) == 0
    capsys.readouterr()
    assert main(["check", str(src), "--set", "base=8"]) == 2
    assert f"{src}:8:5: error: TASSIGN places 'a' at 0x8, which is not a multiple of 32" in capsys.readouterr().err


def test_valid_kernels_pass(capsys, tmp_path):
    src = tmp_path / "m.cpp"
    src.write_text(MANUAL % "0x800")
    assert main(["check", str(src)]) == 0
