"""The CMake pre-build step: a configured project regenerates the manual kernel on build."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CMAKE = shutil.which("cmake")
TOOL = shutil.which("ptorewrite")

pytestmark = pytest.mark.skipif(not (CMAKE and TOOL), reason="needs cmake and an installed ptorewrite")


def _project(tmp_path: Path, kernel: Path) -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "CMakeLists.txt").write_text(f"""
cmake_minimum_required(VERSION 3.16)
project(demo NONE)
list(APPEND CMAKE_MODULE_PATH "{ROOT / 'cmake'}")
include(PtoRewrite)
ptorewrite_auto2manual(MANUAL "{kernel}" ARCH a2a3)
add_custom_target(kernels ALL DEPENDS "${{MANUAL}}")
""")
    return proj


def _build(proj: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    build = tmp_path / "build"
    subprocess.run([CMAKE, "-S", str(proj), "-B", str(build), f"-DPTOREWRITE_EXECUTABLE={TOOL}"],
                   check=True, capture_output=True)
    return subprocess.run([CMAKE, "--build", str(build)], check=False, capture_output=True, text=True)


def test_prebuild_step_writes_the_manual_kernel(tmp_path):
    proj = _project(tmp_path, ROOT / "samples" / "vec_add" / "auto.cpp")
    done = _build(proj, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    out = (tmp_path / "build" / "ptorewrite" / "auto.manual.cpp").read_text()
    assert "TASSIGN(x[0], 0x0);" in out and "wait_flag(PIPE_MTE2, PIPE_V" in out


def test_bad_kernel_fails_the_build_with_a_located_error(tmp_path):
    bad = tmp_path / "bad.cpp"
    bad.write_text("#include <pto/pto-inst.hpp>\nextern \"C\" __global__ AICORE void k() { int x = ; }\n")
    proj = _project(tmp_path, bad)
    done = _build(proj, tmp_path)
    assert done.returncode != 0
    assert "bad.cpp:2:" in done.stdout + done.stderr
    assert not (tmp_path / "build" / "ptorewrite" / "bad.manual.cpp").exists()
