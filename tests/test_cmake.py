"""The CMake build step: a small project uses the CMake package installed with ptorewrite
(`ptorewrite --cmake-dir`), rewrites an AUTO kernel that includes a local header, and checks the
rewrite with the host compiler in syntax-only mode against the bundled headers; with both the
Makefile and the Ninja generator. What runs is counted by wrapper scripts around ptorewrite and
the compiler."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "tests" / "kernels" / "cmake_project"
CMAKE = shutil.which("cmake")
TOOL = shutil.which("ptorewrite")
HOST_CXX = shutil.which("clang++")  # the bundled headers use clang builtins; .ci/run installs clang

pytestmark = pytest.mark.skipif(not (CMAKE and TOOL), reason="needs cmake and an installed ptorewrite")

# What a vector kernel for a2a3 is compiled with (see ptorewrite/parse/arch_macros.py).
VEC_A2A3 = "-D__CCE_AICORE__=220 -D__NPU_ARCH__=2201 -D__DAV_C220_VEC__ -D__DAV_VEC__"


@cache
def _cmake_dir() -> Path:
    out = subprocess.run([TOOL, "--cmake-dir"], check=True, capture_output=True, text=True).stdout.strip()
    return Path(out)


def _logging_wrapper(path: Path, real: str, log: Path) -> Path:
    path.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _project(tmp_path: Path, use: str, kernel: str = "row_scale.cpp") -> Path:
    proj = tmp_path / "proj"
    (proj / "kernels").mkdir(parents=True)
    for f in KERNELS.iterdir():
        shutil.copy(f, proj / "kernels" / f.name)
    cmake_dir = _cmake_dir()
    load = ("find_package(PtoRewrite 0.1 REQUIRED)" if use == "find_package"
            else f'include("{cmake_dir}/PtoRewrite.cmake")')
    (proj / "CMakeLists.txt").write_text(f"""
cmake_minimum_required(VERSION 3.20)
project(demo NONE)
{load}
ptorewrite_auto2manual(OUT_VAR MANUAL SOURCES kernels/{kernel} ARCH a2a3 CORE vec)
set(checked)
foreach(src IN LISTS MANUAL)
  add_custom_command(OUTPUT "${{src}}.syntax-ok"
    COMMAND "${{HOST_CXX}}" -fsyntax-only -std=c++17 {VEC_A2A3} "-I$<JOIN:${{PTOREWRITE_INCLUDE_DIRS}},;-I>"
            -I "${{CMAKE_CURRENT_SOURCE_DIR}}/kernels" "${{src}}"
    COMMAND "${{CMAKE_COMMAND}}" -E touch "${{src}}.syntax-ok"
    DEPENDS "${{src}}" COMMAND_EXPAND_LISTS VERBATIM)
  list(APPEND checked "${{src}}.syntax-ok")
endforeach()
add_custom_target(syntax_check ALL DEPENDS ${{checked}})
""")
    return proj


class Build:
    def __init__(self, tmp_path: Path, generator: str, use: str, kernel: str = "row_scale.cpp"):
        self.proj = _project(tmp_path, use, kernel)
        self.dir = tmp_path / "build"
        self.rewrites = tmp_path / "rewrites.log"
        self.compiles = tmp_path / "compiles.log"
        tool = _logging_wrapper(tmp_path / "ptorewrite-wrapper", TOOL, self.rewrites)
        cxx = _logging_wrapper(tmp_path / "cxx-wrapper", HOST_CXX or "false", self.compiles)
        args = [CMAKE, "-S", str(self.proj), "-B", str(self.dir), "-G", generator,
                f"-DPTOREWRITE_EXECUTABLE={tool}", f"-DHOST_CXX={cxx}"]
        if use == "find_package":
            args.append(f"-DPtoRewrite_DIR={_cmake_dir()}")
        done = subprocess.run(args, check=False, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr

    def build(self) -> subprocess.CompletedProcess:
        return subprocess.run([CMAKE, "--build", str(self.dir)], check=False, capture_output=True, text=True)

    def count(self, log: Path) -> int:
        return len(log.read_text().splitlines()) if log.exists() else 0

    @property
    def output(self) -> Path:
        return self.dir / "ptorewrite" / "kernels" / "row_scale.manual.cpp"


@pytest.mark.skipif(not HOST_CXX, reason="needs clang++ (the bundled headers use clang builtins)")
@pytest.mark.parametrize("generator,use", [("Unix Makefiles", "find_package"), ("Ninja", "include")])
def test_build_rewrites_once_and_only_when_needed(tmp_path, generator, use):
    if generator == "Ninja" and not shutil.which("ninja"):
        pytest.skip("needs ninja (apt-get install ninja-build)")
    b = Build(tmp_path, generator, use)
    done = b.build()
    assert done.returncode == 0, done.stdout + done.stderr
    assert (b.count(b.rewrites), b.count(b.compiles)) == (1, 1)
    text = b.output.read_text()
    assert "TASSIGN(src[0], 0x0);" in text and "wait_flag(PIPE_MTE2, PIPE_V" in text
    written = b.output.stat().st_mtime_ns

    # A second build does nothing.
    done = b.build()
    assert done.returncode == 0, done.stdout + done.stderr
    assert (b.count(b.rewrites), b.count(b.compiles)) == (1, 1)
    if generator == "Ninja":
        assert "no work to do" in done.stdout

    # Touching the included header rewrites once; the text is the same, so the manual source keeps
    # its time stamp and nothing downstream is redone, then or later.
    os.utime(b.proj / "kernels" / "row_scale.h")
    done = b.build()
    assert done.returncode == 0, done.stdout + done.stderr
    assert (b.count(b.rewrites), b.count(b.compiles)) == (2, 1)
    assert b.output.stat().st_mtime_ns == written
    done = b.build()
    assert (b.count(b.rewrites), b.count(b.compiles)) == (2, 1)
    if generator == "Ninja":
        assert "no work to do" in done.stdout

    # A header change that changes the rewrite (bigger tiles, new addresses) rewrites and recompiles.
    header = b.proj / "kernels" / "row_scale.h"
    header.write_text(header.read_text().replace("ROW_SCALE_ROWS = 16", "ROW_SCALE_ROWS = 32"))
    done = b.build()
    assert done.returncode == 0, done.stdout + done.stderr
    assert (b.count(b.rewrites), b.count(b.compiles)) == (3, 2)
    assert "TASSIGN(src[1], 0x2000);" in b.output.read_text()

    # A deleted output is written again, without its stamp having changed.
    b.output.unlink()
    done = b.build()
    assert done.returncode == 0, done.stdout + done.stderr
    assert b.output.exists() and b.count(b.rewrites) == 4


def test_bad_kernel_fails_the_build_with_a_located_error(tmp_path):
    generator = "Ninja" if shutil.which("ninja") else "Unix Makefiles"
    KERNELS_BAD = tmp_path / "bad"
    KERNELS_BAD.mkdir()
    b_kernel = KERNELS_BAD / "bad.cpp"
    b_kernel.write_text("#include <pto/pto-inst.hpp>\nextern \"C\" __global__ AICORE void k() { int x = ; }\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "CMakeLists.txt").write_text(f"""
cmake_minimum_required(VERSION 3.20)
project(demo NONE)
include("{_cmake_dir()}/PtoRewrite.cmake")
ptorewrite_auto2manual(OUT_VAR MANUAL SOURCES "{b_kernel}")
add_custom_target(kernels ALL DEPENDS ${{MANUAL}})
""")
    build = tmp_path / "build"
    subprocess.run([CMAKE, "-S", str(proj), "-B", str(build), "-G", generator, f"-DPTOREWRITE_EXECUTABLE={TOOL}"],
                   check=True, capture_output=True)
    done = subprocess.run([CMAKE, "--build", str(build)], check=False, capture_output=True, text=True)
    assert done.returncode != 0
    assert "bad.cpp:2:" in done.stdout + done.stderr
    assert not (build / "ptorewrite" / "bad.manual.cpp").exists()
    assert not (build / "ptorewrite" / "bad.manual.cpp.d").exists()


def test_cmake_dir_holds_the_package():
    d = _cmake_dir()
    assert (d / "PtoRewriteConfig.cmake").is_file() and (d / "PtoRewrite.cmake").is_file()
    assert (d / "PtoRewriteConfigVersion.cmake").is_file()


def test_arguments_are_checked_at_configure_time(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "CMakeLists.txt").write_text(f"""
cmake_minimum_required(VERSION 3.20)
project(demo NONE)
include("{_cmake_dir()}/PtoRewrite.cmake")
ptorewrite_auto2manual(OUT_VAR MANUAL SOURCES k.cpp ARCH a9)
""")
    done = subprocess.run([CMAKE, "-S", str(proj), "-B", str(tmp_path / "build"), f"-DPTOREWRITE_EXECUTABLE={TOOL}"],
                          check=False, capture_output=True, text=True)
    assert done.returncode != 0
    assert "ARCH is a2a3 or a5, not 'a9'" in done.stderr
