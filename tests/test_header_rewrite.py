"""auto2manual on a kernel whose helper lives in a header of the user's beside it: the lines the
helper needs go into the header, which is written beside the output under its own name (a
quoted include looks in the including file's folder first, so the output uses the copy)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ptorewrite.cli import main

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "tests" / "kernels" / "header_helper"
KERNEL = HERE / "scale_rows.cpp"
HEADER = HERE / "scale_rows.hpp"
EXPECTED = HERE / "expected"
CLANG = shutil.which("clang++")
INCLUDE = ROOT / "ptorewrite" / "parse" / "include"
TOOLKIT = ROOT / "ptorewrite" / "parse" / "toolkit"


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def _copy_kernel(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(KERNEL, folder / KERNEL.name)
    shutil.copy(HEADER, folder / HEADER.name)
    return folder / KERNEL.name


def test_the_header_is_written_beside_the_output_with_its_lines(capsys, tmp_path):
    out = tmp_path / "out" / "scale_rows.cpp"
    out.parent.mkdir()
    status, stdout, err = run(capsys, "auto2manual", KERNEL, "-o", out)
    assert status == 0, err
    assert stdout == ""
    assert out.read_bytes() == (EXPECTED / "scale_rows.cpp").read_bytes()
    assert (out.parent / "scale_rows.hpp").read_bytes() == (EXPECTED / "scale_rows.hpp").read_bytes()
    assert HEADER.read_text().count("set_flag") == 0  # the original header is untouched
    # The output, read from its folder, uses the rewritten copy: its cluster of flags checks clean,
    # while the same kernel text beside the original header races.
    status, stdout, err = run(capsys, "check", out)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in stdout, stdout + err
    shutil.copy(out, tmp_path / "beside_original.cpp")
    shutil.copy(HEADER, tmp_path / "scale_rows.hpp")
    status, stdout, err = run(capsys, "check", tmp_path / "beside_original.cpp")
    assert status == 1 and "data race" in err
    # Deterministic: a second run leaves both files as they are (not even rewritten).
    stamps = [p.stat().st_mtime_ns for p in (out, out.parent / "scale_rows.hpp")]
    assert run(capsys, "auto2manual", KERNEL, "-o", out)[0] == 0
    assert stamps == [p.stat().st_mtime_ns for p in (out, out.parent / "scale_rows.hpp")]


def test_verify_runs_the_rewrite_with_its_header(capsys):
    status, stdout, err = run(capsys, "verify", KERNEL)
    assert status == 0 and "outputs equivalent" in stdout and "0 race(s), 0 flag problem(s)" in stdout, stdout + err


def test_check_compares_every_file(capsys, tmp_path):
    status, stdout, err = run(capsys, "auto2manual", KERNEL, "--check", EXPECTED / "scale_rows.cpp")
    assert status == 0, stdout + err
    folder = tmp_path / "stale"
    folder.mkdir()
    shutil.copy(EXPECTED / "scale_rows.cpp", folder)
    (folder / "scale_rows.hpp").write_text((EXPECTED / "scale_rows.hpp").read_text().replace(
        "    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW tile: V -> MTE3\n", ""))
    status, stdout, err = run(capsys, "auto2manual", KERNEL, "--check", folder / "scale_rows.cpp")
    assert status == 1 and f"+++ {folder / 'scale_rows.hpp'}" in stdout
    assert "+    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW tile: V -> MTE3" in stdout
    assert "out of date" in err


def test_diff_shows_every_file(capsys):
    status, stdout, err = run(capsys, "auto2manual", KERNEL, "--diff")
    assert status == 0, err
    assert f"--- {KERNEL}\n+++ {KERNEL}\n" in stdout and f"--- {HEADER}\n+++ {HEADER}\n" in stdout
    assert "+    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW tile: MTE2 -> V" in stdout


def test_stdout_cannot_hold_the_headers(capsys):
    status, stdout, err = run(capsys, "auto2manual", KERNEL)
    assert status == 2 and stdout == ""
    assert "error: the rewrite changes 1 header(s) of the kernel's folder too" in err and "give -o OUT.cpp" in err


def test_in_place_rewrites_the_header_too(capsys, tmp_path):
    kernel = _copy_kernel(tmp_path / "k")
    header = kernel.parent / "scale_rows.hpp"
    header.chmod(0o604)
    status, _, err = run(capsys, "auto2manual", "-i", kernel)
    assert status == 0, err
    assert kernel.read_bytes() == (EXPECTED / "scale_rows.cpp").read_bytes()
    assert header.read_bytes() == (EXPECTED / "scale_rows.hpp").read_bytes()
    assert header.stat().st_mode & 0o777 == 0o604  # rewritten in place: its own mode


def test_the_header_copy_gets_the_mode_of_a_new_file(capsys, tmp_path):
    kernel = _copy_kernel(tmp_path / "k")
    (kernel.parent / "scale_rows.hpp").chmod(0o600)
    out = tmp_path / "out" / "scale_rows.cpp"
    out.parent.mkdir()
    old = os.umask(0o027)
    try:
        status, _, err = run(capsys, "auto2manual", kernel, "-o", out)
    finally:
        os.umask(old)
    assert status == 0, err
    assert [p.stat().st_mode & 0o777 for p in (out, out.parent / "scale_rows.hpp")] == [0o640, 0o640]


def test_output_in_the_headers_folder_would_overwrite_it(capsys, tmp_path):
    kernel = _copy_kernel(tmp_path / "k")
    status, _, err = run(capsys, "auto2manual", kernel, "-o", kernel.parent / "manual.cpp")
    assert status == 2 and "would be written over itself" in err and "use -i" in err
    assert not (kernel.parent / "manual.cpp").exists()
    assert (kernel.parent / "scale_rows.hpp").read_bytes() == HEADER.read_bytes()


def test_an_unchanged_header_that_includes_it_is_a_located_error(capsys, tmp_path):
    # The kernel includes wrapper.hpp, which includes scale_rows.hpp from its own folder: a copy
    # beside the output would never be seen by wrapper.hpp.
    kernel = _copy_kernel(tmp_path / "k")
    (kernel.parent / "wrapper.hpp").write_text('// Only includes the helper.\n#include "scale_rows.hpp"\n')
    kernel.write_text(kernel.read_text().replace('#include "scale_rows.hpp"', '#include "wrapper.hpp"'))
    out = tmp_path / "out" / "scale_rows.cpp"
    out.parent.mkdir()
    status, _, err = run(capsys, "auto2manual", kernel, "-o", out)
    assert status == 2 and not out.exists() and not (out.parent / "scale_rows.hpp").exists()
    assert err.startswith(f"{kernel.parent / 'wrapper.hpp'}:2:1: error: '{kernel.parent / 'wrapper.hpp'}' is not "
                          "rewritten but includes"), err


def test_a_header_from_an_include_folder_is_written_beside_the_output(capsys, tmp_path):
    # The helper's header lives in a -I folder; included with "..." it is found beside the output first.
    kernel = tmp_path / "k" / "scale_rows.cpp"
    kernel.parent.mkdir()
    shutil.copy(KERNEL, kernel)
    (tmp_path / "inc").mkdir()
    shutil.copy(HEADER, tmp_path / "inc" / HEADER.name)
    out = tmp_path / "out" / "scale_rows.cpp"
    out.parent.mkdir()
    status, _, err = run(capsys, "auto2manual", "-I", tmp_path / "inc", kernel, "-o", out)
    assert status == 0, err
    assert (out.parent / "scale_rows.hpp").read_bytes() == (EXPECTED / "scale_rows.hpp").read_bytes()
    # With <...> the including file's folder is not searched: the copy would not be used.
    kernel.write_text(kernel.read_text().replace('#include "scale_rows.hpp"', "#include <scale_rows.hpp>"))
    status, _, err = run(capsys, "auto2manual", "-I", tmp_path / "inc", kernel, "-o", tmp_path / "o2.cpp")
    assert status == 2 and err.startswith(f"{kernel}:4:1: error: ") and "is included with <...>" in err, err


@pytest.mark.skipif(CLANG is None, reason="needs clang++")
def test_the_rewrite_and_its_header_compile(tmp_path):
    for name in ("scale_rows.cpp", "scale_rows.hpp"):
        shutil.copy(EXPECTED / name, tmp_path / name)
    done = subprocess.run([CLANG, "-fsyntax-only", "-x", "c++", "-std=c++17", f"-I{INCLUDE}", f"-I{TOOLKIT}",
                           "-D__CCE_AICORE__=220", "-D__NPU_ARCH__=2201", "-D__DAV_C220_VEC__", "-D__DAV_VEC__",
                           str(tmp_path / "scale_rows.cpp")], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_two_kernels_sharing_the_header_get_the_union_once(capsys, tmp_path):
    # A second entry runs the same helper on the same tiles: the header statement's lines agree
    # and are written once.
    kernel = _copy_kernel(tmp_path / "k")
    text = kernel.read_text()
    second = text[text.index('extern "C"'):].replace("scale_rows(", "scale_rows_again(")
    kernel.write_text(text + "\n" + second)
    out = tmp_path / "out" / "scale_rows.cpp"
    out.parent.mkdir()
    status, _, err = run(capsys, "auto2manual", kernel, "-o", out)
    assert status == 0, err
    assert (out.parent / "scale_rows.hpp").read_bytes() == (EXPECTED / "scale_rows.hpp").read_bytes()


def test_the_depfile_lists_the_header(capsys, tmp_path):
    out = tmp_path / "scale_rows.cpp"
    status, _, err = run(capsys, "auto2manual", KERNEL, "-o", out, "--depfile", tmp_path / "out.d")
    assert status == 0, err
    deps = (tmp_path / "out.d").read_text()
    assert deps.startswith(f"{out}:") and str(HEADER) in deps


def test_two_kernels_needing_different_lines_in_the_header_are_a_located_error(capsys, tmp_path):
    # The second entry scales one block, no loop: the helper needs no wait before its load there,
    # while the first entry's loop needs one; one header text cannot hold both.
    kernel = _copy_kernel(tmp_path / "k")
    kernel.write_text(kernel.read_text() + '''
extern "C" __global__ AICORE void scale_one(__gm__ float *out, __gm__ float *in)
{
    using Gm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    using TileT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    TileT tile;
    Gm src(in);
    Gm dst(out);
    scaleBlock(dst, src, tile, 3.0f);
}
''')
    out = tmp_path / "out" / "scale_rows.cpp"
    out.parent.mkdir()
    status, _, err = run(capsys, "auto2manual", kernel, "-o", out)
    assert status == 2 and not out.exists() and not (out.parent / "scale_rows.hpp").exists()
    header = kernel.parent / "scale_rows.hpp"
    assert err.startswith(f"{header}:10:5: error: this statement of the header {header} is run by 'scale_rows' and "
                          "'scale_one', which need different synchronization next to it"), err


def test_a_rewritten_header_included_by_another_rewritten_header(capsys, tmp_path):
    # wrapper.hpp, whose helper needs lines too, includes scale_rows.hpp: both copies go beside
    # the output, and the wrapper's copy finds the helper's copy in its own folder.
    kernel = _copy_kernel(tmp_path / "k")
    (kernel.parent / "wrapper.hpp").write_text(
        '// Scales a block, then adds one to it in place.\n#include "scale_rows.hpp"\n\n'
        "template <typename TileT, typename GmT>\n"
        "AICORE inline void scaleThenAdd(GmT &dst, GmT &src, TileT &tile, float factor)\n{\n"
        "    scaleBlock(dst, src, tile, factor);\n"
        "    pto::TADDS(tile, tile, 1.0f);\n"
        "    pto::TSTORE(dst, tile);\n}\n")
    kernel.write_text(kernel.read_text().replace('#include "scale_rows.hpp"', '#include "wrapper.hpp"')
                      .replace("scaleBlock(dst, src, tile, 2.0f);", "scaleThenAdd(dst, src, tile, 2.0f);"))
    out = tmp_path / "out" / "scale_rows.cpp"
    out.parent.mkdir()
    status, _, err = run(capsys, "auto2manual", kernel, "-o", out)
    assert status == 0, err
    assert "set_flag(" in (out.parent / "wrapper.hpp").read_text()
    assert "set_flag(" in (out.parent / "scale_rows.hpp").read_text()
    status, stdout, err = run(capsys, "check", out)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in stdout, stdout + err


def test_a_helper_template_of_a_header_is_split_on_its_own_parameters(capsys, tmp_path):
    # Two kernels run scale_step<true> and scale_step<false>: only the first loads inside the
    # helper and waits for that load there, so the header's line goes under
    # `if constexpr (FRESH == true)`, the helper's own template parameter.
    here = ROOT / "tests" / "kernels" / "header_template"
    out = tmp_path / "two_steps.cpp"
    status, _, err = run(capsys, "auto2manual", here / "two_steps.cpp", "-o", out)
    assert status == 0, err
    assert out.read_bytes() == (here / "expected" / "two_steps.cpp").read_bytes()
    header = (tmp_path / "scale_step.hpp").read_text()
    assert header == (here / "expected" / "scale_step.hpp").read_text()
    assert "    if constexpr (FRESH == true) {\n        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);" in header
    status, stdout, err = run(capsys, "check", out)
    assert status == 0 and stdout.count("0 race(s), 0 flag problem(s)") == 2, stdout + err
    status, stdout, err = run(capsys, "verify", here / "two_steps.cpp", out)
    assert status == 0 and stdout.count("outputs equivalent") == 2, stdout + err


SHAPES = """\
// Tile and view types the kernel shares with its host code.
#pragma once
using RowsT = Tile<TileType::Vec, float, 8, 64>;
using RowsGm = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
"""

SHAPES_KERNEL = """\
#include <pto/pto-inst.hpp>
using namespace pto;
#include "shapes.hpp"

extern "C" __global__ AICORE void add_one(__gm__ float *out, __gm__ float *in)
{
    RowsT t;
    RowsGm src(in);
    RowsGm dst(out);
    TLOAD(t, src);
    TADDS(t, t, 1.0f);
    TSTORE(dst, t);
}
"""


def test_output_in_another_folder_notes_the_headers_it_still_needs(capsys, tmp_path):
    # The kernel includes a header of its own folder by quotes, which the rewrite does not
    # change (so no copy is written): the output, in another folder, finds it only with that
    # folder on the include path, and a note says so at the include.
    src = tmp_path / "src"
    src.mkdir()
    (src / "shapes.hpp").write_text(SHAPES)
    kernel = src / "add_one.cpp"
    kernel.write_text(SHAPES_KERNEL)
    out = tmp_path / "out" / "add_one.cpp"
    out.parent.mkdir()
    status, _, err = run(capsys, "auto2manual", kernel, "-o", out)
    assert status == 0, err
    assert f'{kernel}:3:1: note: {out} includes "shapes.hpp", found in {src}, not beside {out}: build it with ' \
        f"-I {src}" in err, err
    assert not (out.parent / "shapes.hpp").exists()
    # The note is right: without the folder the output does not build, with it it does.
    status, _, err = run(capsys, "check", out)
    assert status == 2 and "'shapes.hpp' file not found" in err, err
    status, stdout, err = run(capsys, "check", out, "-I", src)
    assert status == 0 and "0 race(s), 0 flag problem(s)" in stdout, stdout + err
    # Beside the kernel, or beside a same file, there is nothing to say.
    status, _, err = run(capsys, "auto2manual", kernel, "-o", src / "add_one.manual.cpp")
    assert status == 0 and "note:" not in err, err
    (out.parent / "shapes.hpp").symlink_to(src / "shapes.hpp")
    status, _, err = run(capsys, "auto2manual", kernel, "-o", out)
    assert status == 0 and "note:" not in err, err


def test_a_different_header_of_that_name_beside_the_output_is_named(capsys, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "shapes.hpp").write_text(SHAPES)
    kernel = src / "add_one.cpp"
    kernel.write_text(SHAPES_KERNEL)
    out = tmp_path / "out" / "add_one.cpp"
    out.parent.mkdir()
    (out.parent / "shapes.hpp").write_text(SHAPES.replace("8, 64", "16, 64"))
    status, _, err = run(capsys, "auto2manual", kernel, "-o", out)
    assert status == 0, err
    assert f"build it with -I {src}; beside it is {out.parent / 'shapes.hpp'}, a different file, which the build " \
        "would take instead" in err, err
    # A warning, not a note: a copy an earlier rewrite left there, with lines this one does not
    # want, would be built (and read by check, verify and simulate) in place of the original.
    line = next(x for x in err.splitlines() if "a different file" in x)
    assert ": warning: " in line and ": note: " not in line, line


def test_a_header_written_beside_the_output_needs_no_note(capsys, tmp_path):
    out = tmp_path / "out" / "scale_rows.cpp"
    out.parent.mkdir()
    status, _, err = run(capsys, "auto2manual", KERNEL, "-o", out)
    assert status == 0 and "note:" not in err, err


def test_kernels_needing_different_lines_inside_a_shared_helper_plan_that_line_at_the_call(capsys, tmp_path):
    # Alone, fold_many would wait for its next block right before the helper's TADD (the TMULS
    # needs only the sum, already in UB), and fold_once before the helper's first instruction
    # (its sum is loaded too): one header text cannot hold both. Both are planned again with no
    # flag's end next to that statement from inside the helper, and they agree.
    folder = tmp_path / "k"
    folder.mkdir()
    for name in ("fold.cpp", "fold.hpp"):
        shutil.copy(HERE / name, folder / name)
    out = tmp_path / "out" / "fold.cpp"
    out.parent.mkdir()
    status, _, err = run(capsys, "auto2manual", folder / "fold.cpp", "-o", out)
    assert status == 0, err
    assert f"{folder / 'fold.hpp'}:9:5: note: the kernels of this file need different lines here" in err, err
    assert "2 of them ('fold_many', 'fold_once')" in err, err
    assert out.read_bytes() == (EXPECTED / "fold.cpp").read_bytes()
    assert (out.parent / "fold.hpp").read_bytes() == (EXPECTED / "fold.hpp").read_bytes()
    assert "wait_flag" not in (out.parent / "fold.hpp").read_text()
    for entry, sets in (("fold_many", ["--set", "blocks=0"]), ("fold_many", ["--set", "blocks=1"]),
                        ("fold_many", ["--set", "blocks=4"]), ("fold_once", [])):
        status, report, err = run(capsys, "verify", "--entry", entry, *sets, folder / "fold.cpp", out)
        assert status == 0 and "outputs equivalent" in report and "0 race(s), 0 flag problem(s)" in report, report + err
