"""Device intrinsics below the PTO instructions (parse/raw.py): raw copies and fills, pointers into
on-chip buffers made from constant addresses, and scalar-unit element accesses through them.

Each kernel in tests/kernels/raw/ checks clean with its flags; with one flag pair deleted, `check`
reports the race at the instruction that needed it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from ptorewrite.cli import main as cli_main
from ptorewrite.parse.frontend import FrontendOptions, load_kernel

RAW = Path(__file__).resolve().parent / "kernels" / "raw"


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    rc = cli_main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def without(tmp_path: Path, path: Path, set_line: str) -> Path:
    """The kernel with one set_flag line and its wait_flag twin deleted."""
    text = path.read_text()
    wait_line = set_line.replace("set_flag", "wait_flag")
    assert text.count(set_line) == 1 and text.count(wait_line) == 1, set_line
    out = tmp_path / path.name
    out.write_text(text.replace(set_line + "\n", "").replace(wait_line + "\n", ""))
    return out


def edited(tmp_path: Path, path: Path, old: str, new: str) -> Path:
    text = path.read_text()
    assert text.count(old) == 1, old
    out = tmp_path / path.name
    out.write_text(text.replace(old, new))
    return out


CLEAN = [
    ("stepped_rows_a5.cpp", ("--arch", "a5"), "0 race(s), 0 flag problem(s) (6 instructions and 2 syncs issued)"),
    ("mx_raw_a5.cpp", ("--arch", "a5"), "0 race(s), 0 flag problem(s) (10 instructions and 6 syncs issued)"),
    ("ub_staging.cpp", (), "0 race(s), 0 flag problem(s) (5 instructions and 4 syncs issued)"),
    ("l1_words.cpp", (), "0 race(s), 0 flag problem(s) (5 instructions and 6 syncs issued)"),
    ("bursts_and_dup.cpp", (), "0 race(s), 0 flag problem(s) (6 instructions and 4 syncs issued)"),
    ("align_v2_a5.cpp", ("--arch", "a5"), "0 race(s), 0 flag problem(s) (3 instructions and 2 syncs issued)"),
    ("align_b_a2a3.cpp", (), "0 race(s), 0 flag problem(s) (3 instructions and 2 syncs issued)"),
    ("gather_by_index.cpp", (), "0 race(s), 0 flag problem(s) (6 instructions and 8 syncs issued)"),
]


@pytest.mark.parametrize(("name", "flags", "summary"), CLEAN, ids=[c[0] for c in CLEAN])
def test_raw_kernels_check_clean_with_their_flags(capsys, name, flags, summary):
    rc, out, err = run_cli(capsys, "check", *flags, RAW / name)
    assert rc == 0 and summary in out, out + err
    assert "error:" not in err


# (kernel, arch flags, the set_flag deleted, the race expected: line:col and message)
RACES = [
    ("ub_staging.cpp", (), "    set_flag(PIPE_S, PIPE_MTE3, EVENT_ID1);",
     ("15:5: error: data race (RAW) on UB bytes [0x2000, 0x2004): copy_ubuf_to_gm [MTE3] reads "
     "static_cast<__ubuf__ void *>(word) while ScalarStore [S] at 14:5 via 35:5 writes word[0], and nothing orders "
     "them; needs S -> MTE3")),
    ("ub_staging.cpp", (), "    set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);",
     ("31:5: error: data race (RAW) on UB bytes [0x1000, 0x1004): ScalarLoad [S] reads seen[0] while "
     "copy_gm_to_ubuf [MTE2] at 24:5 writes")),
    ("l1_words.cpp", (), "    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);",
     ("14:5: error: data race (RAW) on L1 bytes [0x0, 0x20): copy_cbuf_to_gm [MTE3] reads "
     "static_cast<__cbuf__ void *>(fill) while create_cbuf_matrix [MTE2] at 13:5 writes fill")),
    ("l1_words.cpp", (), "    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);",
     ("18:5: error: data race (RAW) on L1 bytes [0x400, 0x440): copy_cbuf_to_ubuf [MTE1] reads "
     "static_cast<__cbuf__ void *>(copy) while copy_gm_to_cbuf [MTE2] at 17:5 writes")),
    ("l1_words.cpp", (), "    set_flag(PIPE_MTE1, PIPE_MTE3, EVENT_ID2);",
     ("21:5: error: data race (RAW) on UB bytes [0x800, 0x840): copy_ubuf_to_gm [MTE3] reads "
     "static_cast<__ubuf__ void *>(staged) while copy_cbuf_to_ubuf [MTE1] at 20:5 writes")),
    ("bursts_and_dup.cpp", (), "    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);",
     ("27:5: error: data race (RAW) on UB bytes [0x100, 0x180): copy_ubuf_to_gm [MTE3] reads "
     "static_cast<__ubuf__ void *>(pad) while vector_dup [V] at 21:5 writes pad")),
    ("bursts_and_dup.cpp", (), "    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);",
     ("28:5: error: data race (RAW) on UB bytes [0x0, 0x20): copy_ubuf_to_gm [MTE3] reads "
     "static_cast<__ubuf__ void *>(rows) while copy_gm_to_ubuf [MTE2] at 17:5 writes")),
    ("align_v2_a5.cpp", ("--arch", "a5"), "    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);",
     ("12:5: error: data race (RAW) on UB bytes [0x200, 0x2c0): copy_ubuf_to_gm_align_v2 [MTE3] reads rows while "
     "copy_gm_to_ubuf_align_v2 [MTE2] at 11:5 writes rows")),
    ("align_v2_a5.cpp", ("--arch", "a5"), "    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);",
     ("13:5: error: data race (RAW) on UB bytes [0x200, 0x2c0): copy_ubuf_to_cbuf [MTE3] reads "
      "static_cast<__ubuf__ void *>(rows) while copy_gm_to_ubuf_align_v2 [MTE2] at 11:5 writes rows")),
    ("align_b_a2a3.cpp", (), "    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);",
     ("17:5: error: data race (RAW) on UB bytes [0x0, 0x40): copy_ubuf_to_gm_align_b32 [MTE3] reads rows while "
      "copy_gm_to_ubuf_align_b32 [MTE2] at 12:5 writes rows")),
    ("mx_raw_a5.cpp", ("--arch", "a5"), "    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);",
     ("41:5: error: data race (RAW) on L1 bytes [0x4000, 0x4200): load_cbuf_to_ca_mx [MTE1] reads "
      "static_cast<__cbuf__ void *>(aScales) while copy_gm_to_cbuf_align_v2 [MTE2] at 35:5 writes aScales")),
    ("mx_raw_a5.cpp", ("--arch", "a5"), "    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);",
     ("45:5: error: data race (RAW) on L0A_SCALE bytes [0x0, 0x200): mad_mx [M] reads scales of left.data() while "
      "load_cbuf_to_ca_mx [MTE1] at 43:5 writes aAt")),
]


@pytest.mark.parametrize(("name", "flags", "set_line", "race"), RACES,
                         ids=[f"{r[0]}:{r[2].strip()}" for r in RACES])
def test_deleting_a_flag_reports_the_race_at_the_instruction_that_needed_it(capsys, tmp_path, name, flags,
                                                                           set_line, race):
    path = without(tmp_path, RAW / name, set_line)
    rc, out, err = run_cli(capsys, "check", *flags, path)
    assert rc == 1, out + err
    assert f"{path}:{race}" in err, err


def test_bursts_touch_their_blocks_only(capsys, tmp_path):
    # Two one-block bursts one block apart leave the block between them alone: the tile placed
    # there is written on V while the copy runs, unordered and race-free; one block further it
    # overlaps the second burst.
    path = edited(tmp_path, RAW / "bursts_and_dup.cpp", "TASSIGN(between, 0x20);", "TASSIGN(between, 0x40);")
    rc, out, err = run_cli(capsys, "check", path)
    assert rc == 1, out + err
    assert f"{path}:18:5: error: data race (WAW) on UB bytes [0x40, 0x60): TEXPANDS [V] writes between while " \
           "copy_gm_to_ubuf [MTE2] at 17:5 writes" in err, err


def test_an_on_chip_pointer_stepped_in_a_loop_follows_each_iteration(capsys, tmp_path):
    # A fifth iteration stores the row where the vector fill lands: the pointer's address is the
    # one its reassignment gave in that iteration, not the one it was declared with.
    path = edited(tmp_path, RAW / "stepped_rows_a5.cpp", "k < 4", "k < 5")
    rc, out, err = run_cli(capsys, "check", "--arch", "a5", path)
    assert rc == 1 and "1 race(s)" in out, out + err
    assert f"{path}:26:5: error: data race (WAR) on UB bytes [0x400, 0x500): TEXPANDS [V] writes spare while " \
           "copy_ubuf_to_gm_align_v2 [MTE3] at 24:9 reads row" in err, err


def test_an_on_chip_pointer_moved_under_a_run_time_condition_is_read_after_it(capsys, tmp_path):
    kernel = tmp_path / "moved_row.cpp"
    kernel.write_text(
        "#include <pto/pto-inst.hpp>\nusing namespace pto;\n"
        "extern \"C\" __global__ AICORE void moved_row(__gm__ float *out, int shift)\n{\n"
        "    Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor> spare;\n    TASSIGN(spare, 0x400);\n"
        "    __ubuf__ float *row = (__ubuf__ float *)0x0;\n    if (shift > 0)\n"
        "        row = (__ubuf__ float *)0x400;\n"
        "    copy_ubuf_to_gm_align_v2(out, row, 0, 1, 256, 0, 256, 256);\n    TEXPANDS(spare, 1.0f);\n}\n")
    rc, out, err = run_cli(capsys, "check", "--arch", "a5", "--set", "shift=0", kernel)
    assert rc == 0 and "0 race(s)" in out, out + err
    for given in (("--set", "shift=1"), ()):
        rc, out, err = run_cli(capsys, "check", "--arch", "a5", *given, kernel)
        assert rc == 1 and f"{kernel}:11:5: error: data race (WAR) on UB bytes [0x400, 0x500): TEXPANDS [V] writes " \
                           "spare while copy_ubuf_to_gm_align_v2 [MTE3] at 10:5 reads row" in err, err


def test_mx_scale_loads_start_at_their_row_and_fractal(tmp_path):
    # Rows of fractals from the source's row 1, fractal 2 (the source 4 fractals wide): 3 rows of
    # 2 fractals into the scale buffer beside the Left tile (its address shifted right by 4).
    k = load_kernel(RAW / "mx_raw_a5.cpp", FrontendOptions(auto_mode=False, arch="a5"))
    load = next(i for i in k.instructions() if i.op == "load_cbuf_to_ca_mx")
    assert load.pipe == "MTE1"
    dst, src = (a.value for a in load.args)
    assert [int(str(e)) for e in (dst.base, dst.count, dst.length, dst.stride)] == [0, 4, 128, 128]
    assert (dst.space, src.space) == ("L0A_SCALE", "L1")
    text = (RAW / "mx_raw_a5.cpp").read_text().replace("(aScales), 0, 0, 4, 4, 4, 4);", "(aScales), 1, 2, 3, 2, 4, 4);")
    assert "1, 2, 3, 2, 4, 4" in text
    path = tmp_path / "mx_raw_a5.cpp"
    path.write_text(text)
    k = load_kernel(path, FrontendOptions(auto_mode=False, arch="a5"))
    load = next(i for i in k.instructions() if i.op == "load_cbuf_to_ca_mx")
    dst, src = (a.value for a in load.args)
    assert [int(str(e)) for e in (src.base, src.count, src.length, src.stride)] == [0x4000 + 6 * 32, 3, 64, 128]
    assert [int(str(e)) for e in (dst.base, dst.count, dst.length, dst.stride)] == [0, 3, 64, 128]
    mad = next(i for i in k.instructions() if i.op == "mad_mx")
    assert mad.pipe == "M" and [(a.value.space, a.access) for a in mad.args] == [
        ("L0C", "rw"), ("L0A", "r"), ("L0B", "r"), ("L0A_SCALE", "r"), ("L0B_SCALE", "r")]


MOVED_TILE = """#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void moved_tile(__gm__ float *out, int n)
{
    Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor> row;
    Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor> other;
    TASSIGN(row, 0x0);
    TASSIGN(other, 0x0);
    TASSIGN(row, 0x400);
    __ubuf__ float *at = row.data();
    copy_ubuf_to_gm_align_v2(out, at, 0, 1, 256, 0, 256, 256);
    TEXPANDS(other, 1.0f);
}
"""


READ_FIRST = "    __ubuf__ float *at = row.data();\n    TASSIGN(row, 0x400);\n"
MOVED = "    TASSIGN(row, 0x400);\n    __ubuf__ float *at = row.data();\n"


@pytest.mark.parametrize(("old", "new", "rc", "expect"), [
    # The second TASSIGN, where the tile was declared, moves what data() reads: clear of `other`.
    (MOVED, MOVED, 0, "0 race(s)"),
    # Read before it: the first address, where `other` is filled without a flag.
    (MOVED, READ_FIRST, 1, "12:5: error: data race (WAR) on UB bytes [0x0, 0x100): TEXPANDS [V] writes other"),
    # Moved only under a run-time condition: not known where data() is read.
    ("    TASSIGN(row, 0x400);\n", "    if (n > 0)\n        TASSIGN(row, 0x400);\n", 2,
     "error: the address of 'row' is not known here"),
])
def test_a_tile_assigned_again_is_read_at_its_latest_address(capsys, tmp_path, old, new, rc, expect):
    assert MOVED_TILE.count(old) == 1
    path = tmp_path / "moved_tile.cpp"
    path.write_text(MOVED_TILE.replace(old, new))
    got, out, err = run_cli(capsys, "check", "--arch", "a5", "--set", "n=1", path)
    assert got == rc and expect in out + err, out + err

def test_raw_instructions_in_the_ir():
    k = load_kernel(RAW / "l1_words.cpp", FrontendOptions(auto_mode=False))
    got = [(i.op, i.pipe, [(a.access, str(a.value)) for a in i.args]) for i in k.instructions()]
    assert got[0] == ("create_cbuf_matrix", "MTE2", [("w", str(got[0][2][0][1]))])
    assert [(op, pipe) for op, pipe, _ in got] == [
        ("create_cbuf_matrix", "MTE2"), ("copy_cbuf_to_gm", "MTE3"), ("copy_gm_to_cbuf", "MTE2"),
        ("copy_cbuf_to_ubuf", "MTE1"), ("copy_ubuf_to_gm", "MTE3")]
    copy = next(i for i in k.instructions() if i.op == "copy_gm_to_cbuf")
    dst, src = (a.value for a in copy.args)
    assert (dst.space, dst.param, src.space, src.param) == ("L1", None, "GM", "in")
    assert [int(str(e)) for e in (dst.base, dst.count, dst.length, dst.stride)] == [0x400, 2, 32, 32]


def test_runtime_extent_counts_the_reachable_region_with_a_warning(capsys):
    rc, out, err = run_cli(capsys, "check", RAW / "ub_staging.cpp")
    assert rc == 0
    assert f"{RAW / 'ub_staging.cpp'}:24:5: warning: copy_gm_to_ubuf: 'static_cast<__ubuf__ void *>(seen)' depends " \
           "on lines, not given; counted as every byte from 0x1000 to the end of UB" in err
    assert f"{RAW / 'ub_staging.cpp'}:28:5: warning: the trip count of this loop is not given; its reads through " \
           "'seen[i * 8]' are counted as reading every byte from 0x1000 to the end of UB" in err
    # Given, the copy is exact and the loop runs: 3 element reads.
    rc, out, err = run_cli(capsys, "check", "--set", "lines=3", RAW / "ub_staging.cpp")
    assert rc == 0 and "(7 instructions and 4 syncs issued)" in out and "warning" not in err, out + err


def test_bad_raw_operands_are_located(capsys, tmp_path):
    path = edited(tmp_path, RAW / "l1_words.cpp", "copy_cbuf_to_ubuf(static_cast<__ubuf__ void *>(staged)",
                  "copy_cbuf_to_ubuf(static_cast<__ubuf__ void *>(copy)")
    rc, out, err = run_cli(capsys, "check", path)
    assert rc == 2 and out == ""
    assert f"{path}:20:23: error: the destination of this copy must point into UB, but it points into L1" in err
    path = edited(tmp_path, RAW / "l1_words.cpp", "reinterpret_cast<__cbuf__ int32_t *>(0x0)",
                  "reinterpret_cast<__gm__ int32_t *>(0x0)")
    rc, out, err = run_cli(capsys, "check", path)
    assert rc == 2 and "integer-to-pointer casts are supported only into an on-chip buffer" in err, err


def test_a_kernel_with_only_scalar_gm_stores_checks_clean(capsys):
    path = RAW / "view_handoff.cpp"
    rc, out, err = run_cli(capsys, "check", path)
    assert rc == 0 and "0 race(s), 0 flag problem(s) (0 instructions and 0 syncs issued)" in out, out + err
    assert f"{path}:7:35: warning: kernel 'view_handoff' issues no pipe instruction" in err, err


def test_profiling_scaffolding_is_read_and_the_copy_checked(capsys, tmp_path):
    # Stack warming through a pointer into a local array, a preload spin-wait, system-register
    # reads, a statement macro storing to GM through a stepping pointer, __builtin_bit_cast, and
    # an on-chip pointer rebound under a compile-time condition (the in-place instance).
    path = RAW / "timed_copy.cpp"
    rc, out, err = run_cli(capsys, "check", path)
    assert rc == 0 and out.count("0 race(s), 0 flag problem(s) (3 instructions and 4 syncs issued)") == 2, out + err
    k = load_kernel(path, FrontendOptions(auto_mode=False, entry="timed_copy_in_place"))
    assert {t.cpp_name: t.fixed_addresses for t in k.tiles} == {"a": {0: 0}, "b": {0: 0}}
    racy = without(tmp_path, path, "    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);")
    rc, out, err = run_cli(capsys, "check", racy)
    assert rc == 1 and f"{racy}:50:5: error: data race (RAW) on UB bytes [0x0, 0x100): TADDS [V] reads a while " \
                       "TLOAD [MTE2] at 49:5 via 61:5 writes a" in err, err


def test_assembly_that_computes_is_refused(capsys, tmp_path):
    path = edited(tmp_path, RAW / "timed_copy.cpp", 'asm volatile("MOV %0, PC\\n" : "+l"(pc));',
                  'asm volatile("ADD %0, %0, 1" : "+l"(pc) : "l"(pc));')
    rc, out, err = run_cli(capsys, "check", path)
    assert rc == 2 and out == "" and f"{path}:28:5: error: inline assembly is not supported" in err, err
    # The same inside a helper evaluated at compile time (Cycles, used as a value).
    path = edited(tmp_path, RAW / "timed_copy.cpp", 'asm volatile("MOV %0, SYS_CNT\\n" : "+l"(now));',
                  'asm volatile("ADD %0, %0, 1" : "+l"(now) : "l"(now));')
    rc, out, err = run_cli(capsys, "check", path)
    assert rc == 2 and out == "" and f"{path}:13:5: error: inline assembly is not supported" in err, err


def test_a_gm_window_placed_by_an_element_read_counts_as_its_whole_argument(capsys, tmp_path):
    """`table + ub[0] * 64`: the row is known only at run time, so `check` asks for no value and
    counts the load as reading all of `table`; the store to row 0 before it then needs its flag
    (a sampled index other than 0 would hide that race)."""
    path = RAW / "gather_by_index.cpp"
    rc, out, err = run_cli(capsys, "check", path)
    assert rc == 0, out + err
    assert f"{path}:39:5: warning: TLOAD: GM window 'chosen' is placed by picked[0], read at run time; counted as " \
           "every byte of its GM argument 'table'" in err, err
    racy = without(tmp_path, path, "    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);")
    rc, out, err = run_cli(capsys, "check", racy)
    assert rc == 1 and "1 race(s)" in out, out + err
    assert f"{racy}:37:5: error: data race (RAW) on GM argument table bytes [0x0, 0x100): TLOAD [MTE2] reads chosen " \
           "while TSTORE [MTE3] at 31:5 writes head" in err, err
    k = load_kernel(path, FrontendOptions(auto_mode=False))
    assert k.element_values == ("picked[0]",)


def test_a_loop_reading_downwards_counts_from_the_buffer_start(capsys, tmp_path):
    path = edited(tmp_path, RAW / "ub_staging.cpp", "if (seen[i * 8] != 0)", "if (seen[64 - i * 8] != 0)")
    rc, out, err = run_cli(capsys, "check", path)
    assert rc == 0, out + err
    assert "its reads through 'seen[64 - i * 8]' are counted as reading every byte from 0x0 to the end of UB" in err, err


@pytest.mark.parametrize("first", ["pto/comm/comm_types.hpp", "pto/comm/pto_comm_inst.hpp",
                                   "pto/common/prefetch_async.hpp", "pto/pto-inst.hpp"])
def test_bundled_headers_parse_in_any_include_order(capsys, tmp_path, first):
    kernel = tmp_path / "order.cpp"
    kernel.write_text(
        f"#include <{first}>\n#include <pto/pto-inst.hpp>\nusing namespace pto;\n"
        "extern \"C\" __global__ AICORE void order(__gm__ float *out)\n{\n"
        "    Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor> x;\n    TASSIGN(x, 0x0);\n"
        "    GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>> g(out);\n    TSTORE(g, x);\n}\n")
    rc, out, err = run_cli(capsys, "check", kernel)
    assert rc == 0 and "0 race(s)" in out, out + err


def test_byte_counted_bursts_pad_to_whole_blocks_in_ub(capsys, tmp_path):
    # The gap block between the two UB bursts is free; one block later is the second burst.
    path = edited(tmp_path, RAW / "align_b_a2a3.cpp", "(__ubuf__ float *)0x40;", "(__ubuf__ float *)0x60;")
    rc, out, err = run_cli(capsys, "check", path)
    assert rc == 1 and "2 race(s)" in out and f"{path}:15:5: error: data race (WAW) on UB bytes [0x60, 0x80): vector_dup [V] writes gap " \
                       "while copy_gm_to_ubuf_align_b32 [MTE2] at 12:5 writes rows" in err, err

