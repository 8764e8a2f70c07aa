"""Kernel files as users have them: the compiler environment, host code, kernel templates and
their instantiations, several kernels in one file, toolkit headers, both architectures.

Kernels are the project's own (samples/tmax_launch, tests/kernels/...), written in the
shapes pto-isa's kernel files have. Every rewrite here is checked by the emulator (`verify`),
not only produced.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from ptorewrite.analysis import ir
from ptorewrite.analysis.expr import Const
from ptorewrite.cli import main as cli_main
from ptorewrite.diagnostics import PtoError
from ptorewrite.parse import frontend, invocation
from ptorewrite.parse.frontend import FrontendOptions, list_kernels, load_kernel, load_kernels
from ptorewrite.parse.launch_syntax import blank_launch_configs
from ptorewrite.parse.space_qualifier import blank_space_qualifiers

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
KERNELS = Path(__file__).resolve().parent / "kernels"
BAD = KERNELS / "bad"
TMAX = SAMPLES / "tmax_launch"
SAMPLE_NAMES = ("vec_add", "softmax", "rmsnorm", "gemm_single", "gemm_double", "reshape_subview", "tmax_launch")


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    rc = cli_main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def line_of(path, text: str) -> int:
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if text in line:
            return n
    raise AssertionError(f"{text!r} not in {path}")


def where(path, text: str) -> str:
    n = line_of(path, text)
    return f"{path}:{n}:{Path(path).read_text().splitlines()[n - 1].index(text) + 1}"


def ops(k: ir.Kernel) -> list[str]:
    return [i.op for i in k.instructions()]


# ---------------------------------------------------------------- launch syntax


def _spaces(text: str) -> str:
    return " " * len(text)


@pytest.mark.parametrize("before,after", [
    ("k<T, 4><<<n, nullptr, s>>>(a);", "k<T, 4>" + _spaces("<<<n, nullptr, s>>>") + "(a);"),
    # The configuration may span lines; the newline stays, so later lines keep their numbers.
    ("k<<<blocks,\n    nullptr, stream>>>(x);", "k" + _spaces("<<<blocks,") + "\n" + _spaces("    nullptr, stream>>>")
     + "(x);"),
    # `>>>` closing nested template arguments is not a launch; one inside parentheses is skipped.
    ("A<B<C<int>>> v; k<<<f(a>>>b), 0, s>>>(v);", "A<B<C<int>>> v; k" + _spaces("<<<f(a>>>b), 0, s>>>") + "(v);"),
    ("k<A<B<1>>><<<1, 0, s>>>();", "k<A<B<1>>>" + _spaces("<<<1, 0, s>>>") + "();"),
    # Comments, string literals and `operator<<<` are left alone.
    ('// k<<<1, 0, s>>>()\nconst char *m = "<<<";', '// k<<<1, 0, s>>>()\nconst char *m = "<<<";'),
    ("bool operator<<<T>(T a);", "bool operator<<<T>(T a);"),
    # A launch inside a macro body (a launcher written as a #define).
    ("#define RUN(k) k<<<1, nullptr, s>>>()", "#define RUN(k) k" + _spaces("<<<1, nullptr, s>>>") + "()"),
    ("int a = 1'000; k<<<a>>>();", "int a = 1'000; k" + _spaces("<<<a>>>") + "();"),
])
def test_launch_configuration_is_blanked_in_place(before, after):
    text, configs = blank_launch_configs(before)
    assert text == after and len(text) == len(before)
    assert all(before[c.start:c.start + 3] == "<<<" and before[c.end - 3:c.end] == ">>>" for c in configs)


@pytest.mark.parametrize("before,after", [
    ("[aicore] void f();", _spaces("[aicore]") + " void f();"),
    ("__global__ [aicore] void k() {}", "__global__ " + _spaces("[aicore]") + " void k() {}"),
    ("template <typename T>\n[aicore] T g(T v);", "template <typename T>\n" + _spaces("[aicore]") + " T g(T v);"),
    ("#define AICORE [aicore]\nint x;", "#define AICORE " + _spaces("[aicore]") + "\nint x;"),
    ("#include \"a.h\"\n[aicore] void f();", "#include \"a.h\"\n" + _spaces("[aicore]") + " void f();"),
    ("}\n/* device */ [ aicore ] inline int h();", "}\n/* device */ " + _spaces("[ aicore ]") + " inline int h();"),
    # A subscript, a lambda capture, comments and string literals are left alone.
    ("int v = w[aicore];", "int v = w[aicore];"),
    ("auto f = [aicore]() { return aicore; };", "auto f = [aicore]() { return aicore; };"),
    ("g([aicore] { return 1; }, a[i][aicore]);", "g([aicore] { return 1; }, a[i][aicore]);"),
    ('// [aicore] void f();\nconst char *s = "[aicore]";', '// [aicore] void f();\nconst char *s = "[aicore]";'),
])
def test_bracketed_space_qualifier_is_blanked_in_place(before, after):
    assert blank_space_qualifiers(before) == after


def test_bracketed_space_qualifier_in_kernel_and_header(capsys):
    # `[aicore]` in the kernel file and in a user header (a function, a template, a macro body);
    # the header also calls TROWEXPANDSUB through its _IMPL entry point and builds an FFTS word.
    kernel = KERNELS / "bracket_qualifier.cpp"
    rc, out, err = run_cli(capsys, "ir", "-I", KERNELS / "include", kernel)
    assert rc == 0, err
    assert "TROWEXPANDSUB(out y, x, m)  [V]" in out
    rc, out, err = run_cli(capsys, "check", "-I", KERNELS / "include", kernel)
    assert (rc, err) == (0, ""), err
    assert "0 race(s), 0 flag problem(s) (4 instructions and 4 syncs issued)" in out


# ---------------------------------------------------------------- compiler environment


def test_clang_builtin_headers_come_with_the_package():
    rd = invocation.resource_dir()
    assert rd is not None and (rd / "include" / "stddef.h").is_file()
    assert "clang_tidy" in str(rd) or str(rd).startswith("/usr")
    assert ["-resource-dir", str(rd)] == invocation.clang_args(FrontendOptions(), "vec")[7:9]


def test_system_clang_of_the_same_version_is_preferred(tmp_path):
    for version in ("17", "18", "19"):
        inc = tmp_path / f"llvm-{version}" / "lib" / "clang" / version / "include"
        inc.mkdir(parents=True)
        (inc / "stddef.h").write_text("")
    (tmp_path / "llvm-20" / "lib" / "clang" / "20" / "include").mkdir(parents=True)  # no builtin headers
    found = invocation.system_resource_dirs((str(tmp_path / "llvm-*" / "lib" / "clang" / "*"),))
    assert [p.name for p in found] == ["18", "19", "17"]


def test_standard_library_parses():
    k = load_kernel(KERNELS / "stdlib_user.cpp")
    assert ops(k) == ["TLOAD", "TEXP", "TSTORE"]  # std::is_same_v<T, float> took the first branch
    assert (k.tiles[0].rows, k.tiles[0].cols) == (16, 64)


def test_missing_builtin_headers_are_explained(monkeypatch, capsys):
    monkeypatch.setattr(invocation, "resource_dir", lambda: None)
    rc, out, err = run_cli(capsys, "ir", KERNELS / "stdlib_user.cpp")
    assert (rc, out) == (2, "")
    assert "error: 'stddef.h' file not found" in err
    assert "note: clang's builtin headers were not found: ptorewrite takes them from the clang-tidy package" in err


def test_missing_standard_library_is_explained(tmp_path, capsys):
    # No C++ standard library on the search path (as on a machine without g++): a kernel that
    # includes one of its headers gets clang's error and a note that says where it comes from.
    db = [{"directory": str(KERNELS), "file": "stdlib_user.cpp",
           "arguments": ["clang++", "-nostdinc++", "-c", "stdlib_user.cpp"]}]
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    rc, out, err = run_cli(capsys, "ir", KERNELS / "stdlib_user.cpp", "-p", tmp_path)
    assert (rc, out) == (2, "")
    assert f"{where(KERNELS / 'stdlib_user.cpp', '<cstddef>') .rsplit(':', 1)[0]}" in err
    assert "error: 'cstddef' file not found" in err
    assert "note: <cstddef> is part of the C++ standard library" in err
    # The bundled PTO headers themselves do not need it.
    db[0]["file"] = str(KERNELS / "env_flags.cpp")
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    k = load_kernel(KERNELS / "env_flags.cpp", FrontendOptions(build_dir=str(tmp_path),
                                                              forced_includes=[str(KERNELS / "include" /
                                                                                   "forced_defaults.hpp")]))
    assert ops(k) == ["TLOAD", "TEXP", "TSTORE"]


def _env_kernel(**kw) -> tuple[tuple[int, int], list[str]]:
    k = load_kernel(KERNELS / "env_flags.cpp", FrontendOptions(**kw))
    return (k.tiles[0].rows, k.tiles[0].cols), ops(k)


def test_forced_include_undefine_and_standard():
    forced = str(KERNELS / "include" / "forced_defaults.hpp")
    with pytest.raises(PtoError, match="use of undeclared identifier 'FORCED_ROWS'"):
        load_kernel(KERNELS / "env_flags.cpp")
    assert _env_kernel(forced_includes=[forced]) == ((8, 64), ["TLOAD", "TEXP", "TSTORE"])
    assert _env_kernel(forced_includes=[forced], std="c++20") == ((8, 128), ["TLOAD", "TEXP", "TSTORE"])
    assert _env_kernel(forced_includes=[forced], defines=["USE_ABS"]) == ((8, 64), ["TLOAD", "TABS", "TSTORE"])
    # -U applies after every -D, as the option's help says.
    assert _env_kernel(forced_includes=[forced], defines=["USE_ABS"], undefines=["USE_ABS"])[1] == \
        ["TLOAD", "TEXP", "TSTORE"]


def test_environment_options_on_the_command_line(capsys):
    forced = KERNELS / "include" / "forced_defaults.hpp"
    rc, out, err = run_cli(capsys, "ir", KERNELS / "env_flags.cpp", "-include", forced, "-std=c++20",
                           "-DUSE_ABS", "-U", "USE_ABS")
    assert rc == 0, err
    assert "x: Vec fp32 8x128 RowMajor, 4096 B" in out and "TEXP(out x, x)" in out


def test_environment_options_from_compile_commands(tmp_path):
    db = [{"directory": str(KERNELS), "file": "env_flags.cpp",
           "arguments": ["clang++", "-std=c++20", "-include", "include/forced_defaults.hpp", "-DUSE_ABS",
                         "-isystem", "/nonexistent/sys", "-idirafter", "/nonexistent/after", "-c", "env_flags.cpp"]}]
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    assert _env_kernel(build_dir=str(tmp_path)) == ((8, 128), ["TLOAD", "TABS", "TSTORE"])
    # The command line comes after the database: its -U removes the database's -D.
    assert _env_kernel(build_dir=str(tmp_path), undefines=["USE_ABS"])[1] == ["TLOAD", "TEXP", "TSTORE"]
    args = invocation.clang_args(invocation.with_database(FrontendOptions(build_dir=str(tmp_path)),
                                                          KERNELS / "env_flags.cpp"), "vec")
    assert args[args.index("-isystem") + 1] == "/nonexistent/sys"
    assert "/nonexistent/after" in args and args.index("/nonexistent/after") < args.index(
        str(invocation.TOOLKIT_STANDINS))
    assert args[args.index("-include") + 1] == str(KERNELS / "include" / "forced_defaults.hpp")


def test_build_database_pto_headers_do_not_replace_the_bundled_ones(tmp_path):
    # A real NPU build's database puts pto-isa's include/ on -I; only the device compiler parses
    # those headers, so the configuration's PTO headers are searched first.
    npu = tmp_path / "pto-isa" / "include" / "pto"
    npu.mkdir(parents=True)
    (npu / "pto-inst.hpp").write_text('#error "NPU headers"\n')
    db = [{"directory": str(SAMPLES / "vec_add"), "file": "auto.cpp",
           "arguments": ["bisheng", "-xcce", f"-I{npu.parent}", "--cce-aicore-arch=dav-c220-vec", "-c", "auto.cpp"]}]
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    k = load_kernel(SAMPLES / "vec_add" / "auto.cpp", FrontendOptions(build_dir=str(tmp_path)))
    assert ops(k) == ["TLOAD", "TLOAD", "TADD", "TSTORE"]


# ---------------------------------------------------------------- toolkit headers


def test_toolkit_stand_ins(capsys):
    rc, out, err = run_cli(capsys, "ir", KERNELS / "toolkit_headers.cpp")
    assert rc == 0, err
    assert "kernel toolkit_kernel" in out and "in: gm uint8*" in out
    assert "src: fp16 shape<1,1,1,16,128>" in out and "at in + (((block_idx * 16) * 128) * 2) B" in out
    # The launcher and the #ifndef __COSTMODEL host section are parsed and left as they are.
    rc, out, err = run_cli(capsys, "auto2manual", KERNELS / "toolkit_headers.cpp")
    assert rc == 0, err
    host = (KERNELS / "toolkit_headers.cpp").read_text()
    assert out[out.index("rtError_t LaunchToolkitKernel"):] == host[host.index("rtError_t LaunchToolkitKernel"):]
    rc, out, err = run_cli(capsys, "verify", KERNELS / "toolkit_headers.cpp")
    assert rc == 0 and "outputs equivalent" in out, out + err



def test_npu_builtins_and_implementation_headers(capsys):
    # 8-bit float tiles, an implementation header and debug.h included by their own paths, the
    # icache preload, a compiled-out assert macro, the layout helper in an `if constexpr`, and an
    # instruction called through its _IMPL entry point.
    kernel = KERNELS / "npu_builtins.cpp"
    rc, out, err = run_cli(capsys, "ir", "--arch", "a5", kernel)
    assert rc == 0, err
    assert "in: gm fp8_e4m3*" in out
    # The helper picked the ND branch (a RowMajor tile without boxes): TCOLEXPAND, not TMOV.
    assert "TCOLEXPAND(out rows, row)  [V]" in out and "TMOV" not in out
    rc, out, err = run_cli(capsys, "check", "--arch", "a5", kernel)
    assert rc == 0, err
    # SYNCALL's own pipe_barrier(PIPE_ALL) is the sixth sync.
    assert "0 race(s), 0 flag problem(s) (3 instructions and 6 syncs issued)" in out
    assert f"{where(kernel, 'SYNCALL()')}: warning: SYNCALL is a barrier across all blocks of the launch: check " \
        "models it on this block as pipe_barrier(PIPE_ALL)" in err


def test_layout_helper_takes_the_boxed_branch(tmp_path, capsys):
    # The same helper on an NZ tile (column major with row-major boxes) takes the TMOV branch.
    text = (KERNELS / "npu_builtins.cpp").read_text().replace(
        "BLayout::RowMajor, kRows, kCols>", "BLayout::ColMajor, kRows, kCols, SLayout::RowMajor, 512>")
    kernel = tmp_path / "npu_builtins_nz.cpp"
    kernel.write_text(text)
    rc, out, err = run_cli(capsys, "ir", "--arch", "a5", kernel)
    assert rc == 0, err
    assert "TMOV(out rows, row)" in out and "TCOLEXPAND" not in out


def test_raw_data_intrinsic_makes_a_manual_kernel_and_is_refused_in_an_auto_build(tmp_path, capsys):
    kernel = tmp_path / "raw_copy.cpp"
    kernel.write_text(
        "#include <pto/pto-inst.hpp>\nusing namespace pto;\n"
        "extern \"C\" __global__ AICORE void k(__gm__ float *out)\n{\n"
        "    copy_ubuf_to_gm(out, (__ubuf__ float *)0, 0, 1, 1, 0, 0);\n}\n")
    rc, out, err = run_cli(capsys, "check", kernel)
    assert rc == 0 and "0 race(s), 0 flag problem(s) (1 instructions and 0 syncs issued)" in out, out + err
    rc, out, err = run_cli(capsys, "auto2manual", kernel, "-o", tmp_path / "out.cpp")
    assert rc == 2 and out == ""
    assert f"{kernel}:5:5: error: 'copy_ubuf_to_gm' addresses buffers directly" in err
    assert "Traceback" not in err

def test_a_real_toolkit_header_wins(tmp_path):
    # A toolkit on -I is searched before the stand-ins: this acl.h defines what the kernel needs.
    toolkit = tmp_path / "toolkit" / "include"
    (toolkit / "acl").mkdir(parents=True)
    (toolkit / "acl" / "acl.h").write_text("#define TOOLKIT_TILE_COLS 256\ntypedef void *aclrtStream;\n")
    kernel = tmp_path / "k.cpp"
    kernel.write_text(
        '#include "acl/acl.h"\n#include <pto/pto-inst.hpp>\nusing namespace pto;\n'
        "extern \"C\" __global__ AICORE void k(__gm__ float *out)\n{\n"
        "    Tile<TileType::Vec, float, 1, TOOLKIT_TILE_COLS, BLayout::RowMajor, 1, TOOLKIT_TILE_COLS> t;\n"
        "    GlobalTensor<float, Shape<1, 1, 1, 1, TOOLKIT_TILE_COLS>, Stride<1, 1, 1, TOOLKIT_TILE_COLS, 1>> g(out);\n"
        "    TSTORE(g, t);\n}\n")
    with pytest.raises(PtoError, match="TOOLKIT_TILE_COLS"):
        load_kernel(kernel)  # the stand-in does not define it
    assert load_kernel(kernel, FrontendOptions(include_dirs=[str(toolkit)])).tiles[0].cols == 256


# ---------------------------------------------------------------- --pto-isa-root


def _fake_pto_isa(root: Path) -> Path:
    """A stand-in for a pto-isa checkout whose umbrella header checks the configuration the front
    end builds (pto-isa's CPU simulator: __CPU_SIM, C++20, stdint.h and stddef.h forced in, no NPU
    macros) and defines a tiny API the kernel below uses."""
    inc = root / "include" / "pto"
    inc.mkdir(parents=True)
    (inc / "pto-inst.hpp").write_text("""
#pragma once
#if !defined(__CPU_SIM) || defined(__CCE_AICORE__) || defined(__NPU_ARCH__) || defined(__DAV_C220_VEC__)
#error "not the CPU-simulator configuration"
#endif
#if __cplusplus < 202002L
#error "the CPU simulator builds with C++20"
#endif
#if !defined(__DAV_VEC__) || defined(__DAV_CUBE__)
#error "one core type at a time"
#endif
static_assert(sizeof(uint32_t) == 4 && sizeof(size_t) == 8, "stdint.h and stddef.h are forced in");
#define __global__
#define AICORE
#define __gm__
inline uint32_t get_block_idx() { return 0; }
namespace pto {
enum class TileType { Vec };
enum class BLayout { RowMajor };
template <TileType T, typename D, int R, int C, BLayout L, int VR, int VC> struct Tile {};
template <int... D> struct Shape {};
template <int... D> struct Stride {};
template <typename D, typename S, typename St> struct GlobalTensor { GlobalTensor(D *) {} };
template <typename G, typename T> void TLOAD(T &, G &) {}
template <typename G, typename T> void TSTORE(G &, T &) {}
}
""")
    return root


def test_pto_isa_root_parses_the_cpu_simulator_configuration(tmp_path):
    root = _fake_pto_isa(tmp_path / "pto-isa")
    kernel = tmp_path / "k.cpp"
    kernel.write_text(
        "#include <pto/pto-inst.hpp>\nusing namespace pto;\n"
        "__global__ AICORE void k(__gm__ float *out, __gm__ float *in)\n{\n"
        "    const int64_t first = block_idx;  // an NPU builtin the simulator's stubs lack\n"
        "    Tile<TileType::Vec, float, 4, 64, BLayout::RowMajor, 4, 64> t;\n"
        "    GlobalTensor<float, Shape<1, 1, 1, 4, 64>, Stride<1, 1, 1, 64, 1>> src(in), dst(out);\n"
        "    TLOAD(t, src);\n    TSTORE(dst, t);\n    (void)first;\n}\n")
    opts = FrontendOptions(pto_isa_root=str(root))
    args = invocation.clang_args(opts, "vec")
    assert "-std=c++20" in args and "-D__CPU_SIM=1" in args and not any("__CCE_AICORE__" in a for a in args)
    assert load_kernels(kernel, opts)[0].name == "k"
    # Other NPU builtins kernels call resolve for clang as well (the lowering decides what they mean).
    host = tmp_path / "builtins.cpp"
    host.write_text("void f() { set_ffts_base_addr(0); ffts_cross_core_sync(1, 2); wait_flag_dev(0);"
                    " set_atomic_none(); (void)get_sys_cnt(); (void)block_num; copy_ubuf_to_gm(&block_idx, 0, 1, 2); }\n")
    frontend.clang_errors(frontend.parse_file(host, args).tu)
    # The user's -std wins over the configuration's.
    with pytest.raises(PtoError, match="the CPU simulator builds with C\\+\\+20"):
        load_kernel(kernel, FrontendOptions(pto_isa_root=str(root), std="c++17"))


# ---------------------------------------------------------------- template kernels and launchers


def test_kernels_lists_each_instantiation(capsys):
    path = TMAX / "auto.cpp"
    rc, out, err = run_cli(capsys, "kernels", path)
    assert rc == 0, err
    kernel = where(path, "TMaxKernel(")
    assert out.splitlines() == [
        f"{kernel}: TMaxKernel<float, 32, 64> [vec] instantiated at {where(path, 'TMaxKernel<T, ROWS')}",
        f"{kernel}: TMaxKernel<half, 32, 128> [vec] instantiated at {where(path, 'TMaxKernel<half')}"]
    sites = list_kernels(path)
    assert [(s.instantiation.args, s.instantiation.origin) for s in sites] == [
        ("float, 32, 64", "file"), ("half, 32, 128", "file")]


def test_template_kernel_is_lowered_per_instantiation():
    kernels = load_kernels(TMAX / "auto.cpp")
    assert [k.name for k in kernels] == ["TMaxKernel<float, 32, 64>", "TMaxKernel<half, 32, 128>"]
    for k, dtype, cols in zip(kernels, ("fp32", "fp16"), (64, 128)):
        assert ops(k) == ["TLOAD", "TLOAD", "TMAX", "TSTORE"]
        assert {(t.dtype, t.rows, t.cols, t.nbytes) for t in k.tiles} == {(dtype, 32, cols, 8192)}
        assert [p.dtype for p in k.params] == [dtype] * 3
    with pytest.raises(PtoError, match="several kernels .*choose one with --entry"):
        load_kernel(TMAX / "auto.cpp")
    one = load_kernel(TMAX / "auto.cpp", FrontendOptions(entry="TMaxKernel<half, 32, 128>"))
    assert one.name == "TMaxKernel<half, 32, 128>" and one.tiles[0].dtype == "fp16"


def test_entry_names_an_instantiation_the_file_does_not_make(capsys):
    path = BAD / "template_entry.cpp"  # a kernel template nothing instantiates
    rc, out, err = run_cli(capsys, "ir", path, "--entry", "TemplatedEntry<3>")
    assert rc == 0, err
    assert out.count("TLOAD(out x, gm src)") == 1 and "for i = 0; i < 3;" in out
    rc, out, err = run_cli(capsys, "kernels", path, "--entry", "TemplatedEntry<3>")
    assert out == f"{where(path, 'TemplatedEntry(')}: TemplatedEntry<3> [vec] named with --entry\n"


@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_template_sample_rewrite_serves_every_instantiation(arch, capsys, tmp_path):
    path = TMAX / "auto.cpp"
    out_path = tmp_path / "auto.cpp"
    rc, out, err = run_cli(capsys, "auto2manual", path, "-o", out_path, "--arch", arch)
    assert rc == 0, err
    text = out_path.read_text()
    # One placement serves both instantiations (8 KiB tiles), written once, insert-only.
    assert text.count("TASSIGN(") == 6 and "    TASSIGN(z[1], 0xa000);  // UB 8 KiB\n" in text
    assert [line for line in text.splitlines() if "TASSIGN" not in line and "_flag(" not in line] == \
        path.read_text().splitlines()
    rc, out, err = run_cli(capsys, "verify", path, "--arch", arch)
    assert rc == 0, out + err
    assert out.count("outputs equivalent") == 2 and out.count("0 race(s), 0 flag problem(s)") == 2
    rc, out, err = run_cli(capsys, "verify", path, TMAX / "manual.cpp", "--arch", arch)
    assert rc == 0 and out.count("outputs equivalent") == 2, out + err


def test_instantiations_made_by_macros_from_a_generated_header(capsys):
    # As pto-isa's flash-attention kernels: the cases come from a header the build writes.
    path = KERNELS / "generated_instances.cpp"
    generated = KERNELS / "generated"
    rc, out, err = run_cli(capsys, "kernels", path)
    include_line = line_of(path, '#include "instance_list.h"')
    missing = f"{path}:{include_line}:10"
    assert rc == 2 and f"{missing}: error: 'instance_list.h' file not found" in err
    rc, out, err = run_cli(capsys, "kernels", path, "-I", generated)
    launch = where(path, "TExpKernel<ROWS, COLS><<<")
    assert out.splitlines() == [f"{where(path, 'TExpKernel(')}: TExpKernel<{rows}, 64> [vec] instantiated at {launch}"
                                for rows in (16, 32)]
    rc, out, err = run_cli(capsys, "auto2manual", path, "-I", generated)
    assert rc == 0, err
    # One line serves both; its comment says what it means for each.
    assert "    TASSIGN(x, 0x0);  // UB 4 KiB in TExpKernel<16, 64>; UB 8 KiB in TExpKernel<32, 64>\n" in out
    rc, out, err = run_cli(capsys, "verify", path, "-I", generated)
    assert rc == 0 and out.count("outputs equivalent") == 2, out + err


def test_enum_template_arguments():
    kernels = load_kernels(KERNELS / "enum_template_args.cpp")
    assert [(k.name, ops(k)[1]) for k in kernels] == [
        ("TSplitKernel<pto::TILE_UP_DOWN>", "TEXP"), ("TSplitKernel<pto::TILE_LEFT_RIGHT>", "TABS")]


def test_instantiations_that_need_different_code_get_their_own_branch(capsys, tmp_path):
    # fp32 and fp16 tiles of one shape: the second tile is at 0x1000 in one, 0x800 in the other.
    path = KERNELS / "instantiations_differ.cpp"
    out_path = tmp_path / "rewritten.cpp"
    rc, out, err = run_cli(capsys, "auto2manual", path, "-o", out_path)
    assert rc == 0, err
    text = out_path.read_text()
    decl = "    TileT dst;\n"
    assert text[text.index(decl):text.index("    GmT gIn(in);")] == decl + (
        "    if constexpr (std::is_same_v<T, float>) {\n"
        "        TASSIGN(dst, 0x1000);  // UB 4 KiB\n"
        "    } else if constexpr (std::is_same_v<T, half>) {\n"
        "        TASSIGN(dst, 0x800);  // UB 2 KiB\n"
        "    }  // per instantiation of TNegKernel\n")
    # A line both need the same gets one line, whose comment says what it is in each.
    assert "    TASSIGN(src, 0x0);  // UB 4 KiB in TNegKernel<float, 16, 64>; UB 2 KiB in TNegKernel<half, 16, 64>\n" \
        in text
    placed = {k.name: {t.name: t.fixed_addresses for t in k.tiles} for k in load_kernels(out_path, FrontendOptions(
        auto_mode=False, include_dirs=[str(KERNELS)]))}
    assert placed == {"TNegKernel<float, 16, 64>": {"src": {0: 0}, "dst": {0: 0x1000}},
                      "TNegKernel<half, 16, 64>": {"src": {0: 0}, "dst": {0: 0x800}}}
    rc, out, err = run_cli(capsys, "verify", path)
    assert rc == 0 and out.count("outputs equivalent") == 2 and out.count("0 race(s), 0 flag problem(s)") == 2


def test_shared_helper_lines_that_differ_are_a_located_error(capsys):
    # The tiles are declared in a helper: its lines cannot tell the instantiations apart.
    path = BAD / "helper_tiles_differ.cpp"
    rc, out, err = run_cli(capsys, "auto2manual", path)
    assert (rc, out) == (2, "")
    at = where(path, "TileT dst;")
    assert err.splitlines() == [
        (f"{at}: error: TAbsKernel<float> and TAbsKernel<half> both run this line but need different code after "
         "it; one source cannot serve both: choose one with --entry, or give them separate code"),
        f"{at}: note: TAbsKernel<float> needs: TASSIGN(dst, 0x1000);",
        f"{at}: note: TAbsKernel<half> needs: TASSIGN(dst, 0x800);"]
    rc, out, err = run_cli(capsys, "auto2manual", path, "--entry", "TAbsKernel<half>")
    assert rc == 0 and "TASSIGN(dst, 0x800);" in out


def test_every_kernel_of_a_file_is_rewritten(capsys, tmp_path):
    # Two entries share a helper template; each runs only its own `if constexpr` branch, so each
    # branch gets that kernel's flags, inside the branch.
    path = KERNELS / "multi_entry.cpp"
    rc, out, err = run_cli(capsys, "auto2manual", path)
    assert rc == 0, err
    exp, abs_ = out.index("        TEXP(x, x);\n"), out.index("        TABS(x, x);\n")
    wait = "        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW x: MTE2 -> V\n"
    assert out[exp - len(wait):exp] == wait and out[abs_ - len(wait):abs_] == wait
    assert out.index("    } else {\n") < abs_ - len(wait)
    rc, out, err = run_cli(capsys, "verify", path)
    assert rc == 0 and out.count("outputs equivalent") == 2 and "kernel 2 of 2: abs_kernel" in out, out + err


@pytest.mark.parametrize("command", ["ir", "kernels"])
def test_host_only_file_is_a_located_error(capsys, command):
    path = BAD / "host_only.cpp"
    rc, out, err = run_cli(capsys, command, path)
    assert (rc, out) == (2, "")
    assert err == (f"{path}:1:1: error: no kernel entry function (a __global__ function) found; it defines only "
                   f"'RoundUpBlocks' (line {line_of(path, 'RoundUpBlocks')}), 'PrepareStream' "
                   f"(line {line_of(path, 'PrepareStream')}); name one with --entry\n")


# ---------------------------------------------------------------- a2a3 and a5


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_sample_is_verified_on_a5(name, capsys):
    rc, out, err = run_cli(capsys, "verify", SAMPLES / name / "auto.cpp", "--arch", "a5")
    assert rc == 0 and "outputs equivalent" in out and "NOT" not in out, out + err
    rc, out, err = run_cli(capsys, "verify", SAMPLES / name / "auto.cpp", SAMPLES / name / "manual.cpp",
                           "--arch", "a5")
    assert rc == 0 and "outputs equivalent" in out and "NOT" not in out, out + err


def test_a5_defines_its_own_guards():
    a5 = invocation.predefined_macros(FrontendOptions(arch="a5"), "cube")
    assert {k: a5[k] for k in ("__CCE_AICORE__", "__NPU_ARCH__", "__DAV_C310_CUBE__", "__DAV_CUBE__")} == {
        "__CCE_AICORE__": "310", "__NPU_ARCH__": "3101", "__DAV_C310_CUBE__": "1", "__DAV_CUBE__": "1"}
    assert "__DAV_C220_CUBE__" not in a5 and "__DAV_VEC__" not in a5
    # mixed_core.cpp picks its a5 code with __DAV_C310_* and __CCE_AICORE__ == 310.
    k = load_kernel(KERNELS / "mixed_core.cpp", FrontendOptions(arch="a5", core="vec"))
    assert k.arch == "a5" and k.tile("x").cols == 128


# ---------------------------------------------------------------- communication calls and SYNCALL

COMM = KERNELS / "comm"


def test_comm_calls_lower_to_their_pipe_work(capsys):
    # TPUT / TGET become their staging-tile copies and flags, TNOTIFY its closing barrier, TWAIT
    # nothing on the pipes, SYNCALL its leading barrier; the metadata macro and the kernel's own
    # PIPE_FIX macro parse.
    kernel = COMM / "exchange.cpp"
    rc, out, err = run_cli(capsys, "ir", kernel)
    assert rc == 0, err
    body = out[out.index("body:"):].splitlines()[1:]
    put = line_of(kernel, "comm::TPUT(theirs, mine, ping);")
    assert [s.strip() for s in body[3:9]] == [
        f"TLOAD(out ping, gm mine)  [MTE2]  @{put}:5",
        f"set_flag(MTE2 -> MTE3, event 0)  @{put}:5",
        f"wait_flag(MTE2 -> MTE3, event 0)  @{put}:5",
        f"TSTORE(out gm theirs, ping)  [MTE3]  @{put}:5",
        f"set_flag(MTE3 -> MTE2, event 0)  @{put}:5",
        f"wait_flag(MTE3 -> MTE2, event 0)  @{put}:5",
    ]
    pp = line_of(kernel, "ping, pong);")
    pp_lines = [s.split("  @")[0].strip() for s in body if s.endswith(f"@{pp}:5")]
    assert pp_lines == [
        "TLOAD(out ping, gm mine)  [MTE2]", "set_flag(MTE2 -> MTE3, event 0)", "wait_flag(MTE2 -> MTE3, event 0)",
        "pipe_barrier(ALL)", "TSTORE(out gm theirs, ping)  [MTE3]", "TLOAD(out pong, gm mine)  [MTE2]",
        "set_flag(MTE3 -> MTE2, event 0)", "set_flag(MTE2 -> MTE3, event 1)", "wait_flag(MTE3 -> MTE2, event 0)",
        "wait_flag(MTE2 -> MTE3, event 1)", "pipe_barrier(ALL)", "TSTORE(out gm theirs, pong)  [MTE3]",
        "set_flag(MTE3 -> MTE2, event 1)", "wait_flag(MTE3 -> MTE2, event 1)"]
    notify, wait = line_of(kernel, "comm::TNOTIFY("), line_of(kernel, "comm::TWAIT(")
    assert [s.strip() for s in body if s.endswith((f"@{notify}:5", f"@{wait}:5"))] == [
        f"pipe_barrier(ALL)  @{notify}:5"]
    assert body[-1].strip() == f"pipe_barrier(ALL)  @{line_of(kernel, 'SYNCALL();')}:5"
    rc, out, err = run_cli(capsys, "check", kernel)
    assert rc == 0, err
    assert "0 race(s), 0 flag problem(s) (10 instructions and 23 syncs issued)" in out
    assert f"{where(kernel, 'comm::TPUT(theirs')}: warning: communication calls:" in err
    assert err.count("warning: communication calls:") == 1


def test_comm_transfer_leaves_its_staging_tile_unordered_with_vector_work(tmp_path, capsys):
    # Without the kernel's barrier, TGET's load into `ping` (MTE2) races with the add reading it
    # (TGET itself orders its staging tile against MTE3 and MTE2 only), and its store to `local`
    # with the kernel's later store there (two MTE3 writes with no barrier between).
    text = (COMM / "exchange.cpp").read_text()
    kernel = tmp_path / "exchange_race.cpp"
    kernel.write_text(text.replace("    pipe_barrier(PIPE_ALL);  // TGET", "    // TGET"))
    rc, out, err = run_cli(capsys, "check", kernel)
    assert rc == 1
    assert "2 race(s)" in out
    assert f"{where(kernel, 'TADD(sum')}: error: data race (RAW) on UB bytes [0x0, 0x2000)" in err
    assert f"{where(kernel, 'comm::TGET(')}: note: the TLOAD it races with" in err
    assert f"{where(kernel, 'TSTORE(local, sum)')}: error: data race (WAW) on GM argument back" in err


def test_comm_transfer_shares_event_zero_with_the_kernel(tmp_path, capsys):
    # TPUT's hand-off uses MTE2 -> MTE3 event 0: a flag of the kernel's own left set on that
    # event across the call is consumed by TPUT's wait, and the kernel's wait then hangs.
    text = (COMM / "exchange.cpp").read_text()
    kernel = tmp_path / "exchange_flags.cpp"
    kernel.write_text(text.replace("    comm::TPUT(theirs, mine, ping);",
                                   "    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);\n"
                                   "    comm::TPUT(theirs, mine, ping);\n"
                                   "    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);"))
    rc, out, err = run_cli(capsys, "check", kernel)
    assert rc == 1, err
    assert "0 race(s), 0 flag problem(s)" not in out


def test_comm_collectives_are_refused(tmp_path, capsys):
    text = (COMM / "exchange.cpp").read_text()
    kernel = tmp_path / "exchange_async.cpp"
    kernel.write_text(text.replace("    comm::TPUT(theirs, mine, ping);", "    comm::TPUT_ASYNC(theirs, mine);"))
    rc, _, err = run_cli(capsys, "check", kernel)
    assert rc == 2
    assert f"{where(kernel, 'comm::TPUT_ASYNC')}: error: pto::comm::TPUT_ASYNC is not supported" in err


def test_syncall_only_kernel_is_checked(capsys):
    # No tile instruction: the kernel is still analysed for its barrier instead of being
    # reported as empty.
    kernel = COMM / "syncall_only.cpp"
    rc, out, err = run_cli(capsys, "check", kernel)
    assert rc == 0, err
    assert "0 race(s), 0 flag problem(s) (0 instructions and 1 syncs issued)" in out
    rc, out, err = run_cli(capsys, "ir", kernel)
    assert rc == 0, err
    assert out.rstrip().endswith(f"pipe_barrier(ALL)  @{line_of(kernel, 'SYNCALL<')}:5")


def test_comm_calls_in_an_auto_build_keep_only_their_copies(capsys):
    kernel = COMM / "exchange.cpp"
    kernels = load_kernels(kernel, FrontendOptions(auto_mode=True))
    body = list(ir.walk(kernels[0].body))
    comm_lines = {line_of(kernel, "comm::TPUT(theirs"), line_of(kernel, "comm::TNOTIFY("),
                  line_of(kernel, "SYNCALL();")}
    assert not [s for s in body if isinstance(s, ir.Sync) and s.loc.line in comm_lines]
    assert [i.op for i in kernels[0].instructions() if i.loc.line in comm_lines] == ["TLOAD", "TSTORE"]


def test_communication_kernel_surroundings(capsys):
    # Macro-written parameters, a GM pointer to a host struct (its bytes), static members built on
    # each other and read as a template argument, an `#if` inside an initializer (the active
    # branch is read, -D selects the other), and SYNCALL_SOFT_WORKSPACE_INT32.
    kernel = COMM / "dispatch_shape.cpp"
    rc, out, err = run_cli(capsys, "ir", kernel)
    assert rc == 0, err
    assert "  ctx: gm uint8*\n" in out and "  dst: gm fp32*\n" in out
    assert "rows: Vec fp32 8x128 RowMajor, 4096 B" in out
    assert "at dst + 64 B" in out
    rc, out, err = run_cli(capsys, "ir", "-DWIDE_ROWS", kernel)
    assert rc == 0, err
    assert "rows: Vec fp32 8x256 RowMajor, 8192 B" in out
    rc, out, err = run_cli(capsys, "check", kernel)
    assert rc == 0 and "0 race(s), 0 flag problem(s) (2 instructions and 2 syncs issued)" in out, out + err


def test_kernel_defined_pipe_fix_macro_names_the_fix_pipe(capsys):
    kernel = COMM / "pipe_fix_macro.cpp"
    rc, out, err = run_cli(capsys, "ir", kernel)
    assert rc == 0, err
    line = line_of(kernel, "set_flag(PIPE_M, PIPE_FIX")
    assert f"set_flag(M -> FIX, event 0)  @{line}:5" in out
    assert f"TSTORE(out gm o, acc)  [FIX]  @{line + 2}:5" in out


CHUNKED_PUT = """\
#include <pto/pto-inst.hpp>
#include <pto/comm/pto_comm_inst.hpp>
using namespace pto;

using Stage = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
using Whole = GlobalTensor<float, Shape<1, 1, 1, 64, 64>, Stride<1, 1, 1, 64, 1>>;
using Part = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

extern "C" __global__ AICORE void put_then_patch(__gm__ float *peer, __gm__ float *mine)
{
    Stage stage, patch;
    TASSIGN(stage, 0x0);
    TASSIGN(patch, 0x1000);
    Whole src(mine), dst(peer);
    comm::TPUT(dst, src, stage);
    Part lastRows(peer + ROW * 64);
    TSTORE(lastRows, patch);
}
"""


@pytest.mark.parametrize("row", [0, 48])
def test_comm_transfer_touches_the_whole_tensor(tmp_path, capsys, row):
    # A tensor four times the staging tile goes in four chunks: the kernel's store to its last
    # rows races with TPUT's store there as much as one to its first rows does.
    kernel = tmp_path / "chunked_put.cpp"
    kernel.write_text(CHUNKED_PUT.replace("ROW", str(row)))
    rc, out, err = run_cli(capsys, "check", kernel)
    assert rc == 1 and "1 race(s)" in out, err
    lo = row * 64 * 4
    assert f"error: data race (WAW) on GM argument peer bytes [{lo:#x}, {lo + 0x1000:#x})" in err


MACRO_KERNEL = """\
#include <pto/pto-inst.hpp>
using namespace pto;

template <int N>
AICORE void Body(__gm__ float *out) { (void)out; }

#define DEFINE_KERNEL(N) \\
    extern "C" __global__ AICORE void kernel_##N(__gm__ float *out) { Body<N>(out); }

DEFINE_KERNEL(64)
"""


def test_kernel_whose_body_is_a_macro_expansion_is_read_and_located_at_the_use(tmp_path, capsys):
    """The entry's body comes from the macro's expansion; what is said of it is located at the use."""
    kernel = tmp_path / "macro_kernel.cpp"
    kernel.write_text(MACRO_KERNEL)
    rc, _, err = run_cli(capsys, "check", kernel)
    assert rc == 2
    assert f"{where(kernel, 'DEFINE_KERNEL(64)')}: error: no PTO instructions found in kernel 'kernel_64'" in err
    assert "internal error" not in err


@pytest.mark.parametrize("core, ops", [("vec", ["TLOAD", "TABS", "TSTORE"]), ("cube", ["TLOAD", "TADDS", "TSTORE"])])
def test_code_for_one_core_type_and_unqualified_cache_line_scope(core, ops):
    """`if ASCEND_IS_AIV {` / `if ASCEND_IS_AIC {` keep the analysed core's branch; `dcci(p,
    SINGLE_CACHE_LINE)` parses as the device compiler takes it (an unscoped enumeration)."""
    k = load_kernel(str(KERNELS / "core_branches.cpp"), FrontendOptions(auto_mode=True, core=core))
    assert [i.op for i in k.instructions()] == ops


def test_names_in_a_user_namespace_and_a_signal_returned_by_a_helper():
    k = load_kernel(str(COMM / "namespaced_signal.cpp"), FrontendOptions(auto_mode=False))
    views = {g.name: g for g in k.gm_tensors}
    # cfg::kCols = 64 floats a row; cfg::Pair at{2, 3}: rows 2 and 3; the signal is flags[3].
    assert (views["src"].offset_bytes, views["dst"].offset_bytes) == (Const(512), Const(768))
    signal = next(g for g in k.gm_tensors if g.param == "flags")
    assert signal.offset_bytes == Const(12)
    assert [i.op for i in k.instructions()] == ["TLOAD", "TSTORE"]
