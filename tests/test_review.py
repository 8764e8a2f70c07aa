"""Reviewable output of auto2manual: --diff (applied by patch and git apply, byte for byte),
--check (1 on a stale file, 0 on a fresh one), --depfile, outputs left untouched when their
text does not change, and the permission bits of what is written."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ptorewrite.cli import main
from ptorewrite.outputs import depfile_text, unified_diff

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
CMAKE_KERNEL = ROOT / "tests" / "kernels" / "cmake_project"


def run(capsys, argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def _rewrite(capsys, path: Path, *extra) -> bytes:
    out = path.with_name("want.cpp")
    assert run(capsys, ["auto2manual", path, "-o", out, *extra])[0] == 0
    return out.read_bytes()


@pytest.mark.parametrize("sample", ["vec_add", "tmax_launch"])
@pytest.mark.parametrize("tool", ["patch", "git"])
def test_diff_applies_to_the_rewrite_byte_for_byte(capsys, tmp_path, monkeypatch, sample, tool):
    if not shutil.which(tool):
        pytest.skip(f"needs {tool}")
    (tmp_path / "k").mkdir()
    src = tmp_path / "k" / "auto.cpp"
    shutil.copy(SAMPLES / sample / "auto.cpp", src)
    want = _rewrite(capsys, src)
    monkeypatch.chdir(tmp_path)
    status, diff, err = run(capsys, ["auto2manual", "k/auto.cpp", "--diff"])
    assert status == 0, err
    assert diff.startswith("--- k/auto.cpp\n+++ k/auto.cpp\n@@ ")
    cmd = ["patch", "-p0", "--quiet"] if tool == "patch" else ["git", "apply", "-p0", "-"]
    done = subprocess.run(cmd, input=diff.encode("latin-1"), cwd=tmp_path, check=False, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert src.read_bytes() == want


def test_diff_keeps_crlf_and_a_missing_final_newline(capsys, tmp_path, monkeypatch):
    text = (SAMPLES / "vec_add" / "auto.cpp").read_text().rstrip("\n").replace("\n", "\r\n")
    src = tmp_path / "auto.cpp"
    src.write_bytes(text.encode())
    want = _rewrite(capsys, src)
    assert b"\r\n" in want and not want.endswith(b"\n")
    monkeypatch.chdir(tmp_path)
    status, diff, _ = run(capsys, ["auto2manual", "auto.cpp", "--diff"])
    assert status == 0 and "\r\n" in diff
    done = subprocess.run(["patch", "-p0", "--quiet"], input=diff.encode("latin-1"), cwd=tmp_path,
                          check=False, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert src.read_bytes() == want


def test_unified_diff_of_equal_texts_is_empty():
    assert unified_diff(b"a\nb\n", b"a\nb\n", "x", "x") == ""
    assert unified_diff(b"a", b"a\n", "x", "x") == "--- x\n+++ x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"


def test_check_is_0_on_a_fresh_file_and_1_with_a_short_diff_on_a_stale_one(capsys, tmp_path):
    src = tmp_path / "auto.cpp"
    shutil.copy(SAMPLES / "vec_add" / "auto.cpp", src)
    manual = tmp_path / "manual.cpp"
    assert run(capsys, ["auto2manual", src, "-o", manual])[0] == 0
    assert run(capsys, ["auto2manual", src, "--check", manual]) == (0, "", "")

    stale = manual.read_text().replace("TASSIGN(x[1], 0x4000);", "TASSIGN(x[1], 0x8000);")
    manual.write_text(stale)
    before = manual.stat().st_mtime_ns
    status, out, err = run(capsys, ["auto2manual", src, "--check", manual])
    assert status == 1
    assert f"--- {manual}" in out
    assert "-    TASSIGN(x[1], 0x8000);  // UB 16 KiB\n+    TASSIGN(x[1], 0x4000);  // UB 16 KiB\n" in out
    assert len(out.splitlines()) <= 12
    assert f"{manual}: error: out of date" in err
    assert manual.read_text() == stale and manual.stat().st_mtime_ns == before

    # A hand-edited file far from the rewrite: the diff is cut short and says so.
    manual.write_text("// nothing\n" * 200)
    status, out, _ = run(capsys, ["auto2manual", src, "--check", manual])
    assert status == 1 and len(out.splitlines()) == 41 and "more line(s) of diff" in out.splitlines()[-1]


@pytest.mark.parametrize("argv,message", [
    (["--check", "{m}", "-o", "{o}"], "--check compares with an existing file and writes nothing"),
    (["--check", "{m}", "--diff"], "--check compares with an existing file"),
    (["--depfile", "{d}"], "--depfile needs the file it describes"),
    (["--check", "{missing}"], "no such file"),
])
def test_option_misuse_is_exit_status_2(capsys, tmp_path, argv, message):
    src = tmp_path / "auto.cpp"
    shutil.copy(SAMPLES / "vec_add" / "auto.cpp", src)
    (tmp_path / "m.cpp").write_text("")
    names = {"m": tmp_path / "m.cpp", "o": tmp_path / "o.cpp", "d": tmp_path / "o.d",
             "missing": tmp_path / "missing.cpp"}
    status, out, err = run(capsys, ["auto2manual", src, *[a.format(**names) for a in argv]])
    assert status == 2 and not out
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "o.cpp").exists() and not (tmp_path / "o.d").exists()


def test_depfile_lists_the_kernel_and_every_header_it_read(capsys, tmp_path):
    out, dep = tmp_path / "out.cpp", tmp_path / "out.d"
    src = CMAKE_KERNEL / "row_scale.cpp"
    assert run(capsys, ["auto2manual", src, "-o", out, "--depfile", dep])[0] == 0
    text = dep.read_text()
    target, _, deps = text.partition(":")
    assert target == str(out)
    listed = deps.replace("\\\n", " ").split()
    assert str(src) in listed and str(CMAKE_KERNEL / "row_scale.h") in listed
    assert any(p.endswith("/pto/pto-inst.hpp") for p in listed)
    assert all(Path(p).is_file() for p in listed)
    # --depfile-target names another target (the CMake module names the depfile itself).
    assert run(capsys, ["auto2manual", src, "-o", out, "--depfile", dep, "--depfile-target", dep])[0] == 0
    assert dep.read_text().startswith(f"{dep}: \\\n")


def test_depfile_escapes_what_make_would_misread():
    assert depfile_text("out dir/a.cpp", ["/x/h #1.h", "/y/$v.h", "/z/b.h"]) == (
        "out\\ dir/a.cpp: \\\n  /x/h\\ \\#1.h \\\n  /y/$$v.h \\\n  /z/b.h\n")


def test_output_is_left_untouched_when_the_rewrite_is_the_same(capsys, tmp_path):
    src = tmp_path / "auto.cpp"
    shutil.copy(SAMPLES / "vec_add" / "auto.cpp", src)
    out = tmp_path / "out.cpp"
    assert run(capsys, ["auto2manual", src, "-o", out])[0] == 0
    stamp = out.stat().st_mtime_ns - 10**9
    import os

    os.utime(out, ns=(stamp, stamp))
    assert run(capsys, ["auto2manual", src, "-o", out])[0] == 0
    assert out.stat().st_mtime_ns == stamp
    out.write_text("old")
    assert run(capsys, ["auto2manual", src, "-o", out])[0] == 0
    assert "TASSIGN" in out.read_text()


def test_cmake_dir_and_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--cmake-dir"])
    assert done.value.code == 0
    folder = Path(capsys.readouterr().out.strip())
    assert (folder / "PtoRewriteConfig.cmake").is_file()
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.startswith("ptorewrite 0.")


@pytest.fixture
def umask():
    """Sets the process's umask for one test and puts the old one back."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002], ids=oct)
def test_a_new_output_gets_the_mode_the_umask_gives(capsys, tmp_path, umask, mask):
    umask(mask)
    out, dep = tmp_path / "out.cpp", tmp_path / "out.d"
    status, _, err = run(capsys, ["auto2manual", SAMPLES / "vec_add" / "auto.cpp", "-o", out, "--depfile", dep])
    assert status == 0, err
    assert (out.stat().st_mode & 0o777, dep.stat().st_mode & 0o777) == (0o666 & ~mask, 0o666 & ~mask)


def test_rewriting_keeps_the_mode_of_the_file_it_replaces(capsys, tmp_path, umask):
    umask(0o022)
    src = tmp_path / "auto.cpp"
    shutil.copy(SAMPLES / "vec_add" / "auto.cpp", src)
    src.chmod(0o751)
    assert run(capsys, ["auto2manual", "-i", src])[0] == 0
    assert "TASSIGN" in src.read_text() and src.stat().st_mode & 0o777 == 0o751
    out = tmp_path / "out.cpp"
    out.write_text("old")
    out.chmod(0o640)
    assert run(capsys, ["auto2manual", SAMPLES / "vec_add" / "auto.cpp", "-o", out])[0] == 0
    assert "TASSIGN" in out.read_text() and out.stat().st_mode & 0o777 == 0o640
