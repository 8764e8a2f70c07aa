"""The corpus benchmark's reader of a kernel's CMake build flags, on build files of our own."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("cmake_build_flags", ROOT / "benchmarks" / "cmake_build_flags.py")
cmake_build_flags = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cmake_build_flags)
build_flags = cmake_build_flags.build_flags


def _tree(tmp_path: Path, cmake: str) -> tuple[Path, Path]:
    checkout = tmp_path / "checkout"
    folder = checkout / "kernels" / "demo"
    for d in ("include", "kernels/demo/shared", "kernels/common"):
        (checkout / d).mkdir(parents=True, exist_ok=True)
    (folder / "CMakeLists.txt").write_text(cmake)
    (folder / "demo_kernel.cpp").write_text("// kernel\n")
    (folder / "other.cpp").write_text("// host\n")
    return checkout, folder


def test_target_folders_and_definitions(tmp_path):
    checkout, folder = _tree(tmp_path, """
set(COMMON_DIR ${PROJECT_SOURCE_DIR}/../common)
add_compile_definitions(BLOCKS=4)
if(WITH_TRACE)
    add_compile_definitions(TRACE_ALL)  # an option, not the default build
endif()
include_directories(${PROJECT_SOURCE_DIR}/../../include ${TOOLKIT_HOME}/include)
add_library(demo_kernel SHARED demo_kernel.cpp)
target_compile_options(demo_kernel PRIVATE -O2 -DTILE_ROWS=16 -DSIZE=${SIZE})
target_include_directories(demo_kernel PRIVATE ${COMMON_DIR} ${PROJECT_SOURCE_DIR}/shared)
add_executable(host other.cpp)
target_include_directories(host PRIVATE ${PROJECT_SOURCE_DIR}/host_only)
target_compile_definitions(host PRIVATE HOST_SIDE)
""")
    assert build_flags(folder / "demo_kernel.cpp", checkout) == [[
        "-I", str(checkout / "kernels/common"), "-I", str(folder / "shared"),
        "-D", "BLOCKS=4", "-D", "TILE_ROWS=16"]]


def test_one_build_per_compile_command(tmp_path):
    checkout, folder = _tree(tmp_path, """
function(two_core_kernel NAME SOURCE EXTRA)
    add_custom_command(OUTPUT ${NAME}_cube.o
        COMMAND ${CMAKE_CXX_COMPILER} -O2 --cce-aicore-arch=dav-c220-cube ${EXTRA} -DCUBE_SIDE
                -I${PROJECT_SOURCE_DIR}/shared
                -o ${NAME}_cube.o -c ${CMAKE_CURRENT_SOURCE_DIR}/${SOURCE}
        VERBATIM)
    add_custom_command(OUTPUT ${NAME}_vec.o
        COMMAND ${CMAKE_CXX_COMPILER} -O2 ${EXTRA} -DVECTOR_SIDE -DOUT=\\"${NAME}\\"
                -o ${NAME}_vec.o -c ${CMAKE_CURRENT_SOURCE_DIR}/${SOURCE}
        VERBATIM)
endfunction()
two_core_kernel(demo demo_kernel.cpp -DRATIO=2)
two_core_kernel(other other.cpp -DRATIO=1)
""")
    assert build_flags(folder / "demo_kernel.cpp", checkout) == [
        ["--core", "cube", "-I", str(folder / "shared"), "-D", "RATIO=2", "-D", "CUBE_SIDE"],
        ["-D", "RATIO=2", "-D", "VECTOR_SIDE"]]  # no core type named: the file's guards choose


def test_file_no_build_names(tmp_path):
    checkout, folder = _tree(tmp_path, "add_compile_definitions(BLOCKS=4)\nadd_library(x SHARED other.cpp)\n")
    assert build_flags(folder / "demo_kernel.cpp", checkout) == [[]]
    assert build_flags(checkout / "kernels/common/none.cpp", checkout) == [[]]


def test_cached_variable_is_its_value_not_its_documentation(tmp_path):
    """set(VAR value CACHE TYPE "doc"): only the value reaches a definition; nothing that is not
    a macro name becomes a -D."""
    checkout, folder = _tree(tmp_path, """
set(PATH_MODE "1" CACHE STRING "Path mode: 0=GM, 1=UB")
add_compile_definitions(PATH_MODE=${PATH_MODE})
add_compile_definitions("not a name=1")
add_library(demo_kernel SHARED demo_kernel.cpp)
""")
    assert build_flags(folder / "demo_kernel.cpp", checkout) == [["-D", "PATH_MODE=1"]]
