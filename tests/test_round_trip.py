"""manual2auto and the round trip: a manual kernel stripped back to AUTO mode and rewritten again.

- every sample's hand-written twin, stripped, rewrites into a kernel verify accepts against the
  sample's own AUTO kernel;
- ptorewrite's own output strips back to its AUTO input byte for byte, and rewrites to the same
  output again;
- literal before/after pairs for typed events, flag helpers and statement shapes
  (tests/kernels/manual2auto);
- the stripped kernels compile (clang++ -fsyntax-only against the bundled headers);
- auto2manual on a manual kernel says so and names what to run instead.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from _samples import sample_names

from ptorewrite.cli import main
from ptorewrite.parse.guards import code_only
from ptorewrite.parse.launch_syntax import blank_launch_configs

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
KERNELS = ROOT / "tests" / "kernels"
SAMPLE_NAMES = sample_names("manual.cpp")
CLANG = shutil.which("clang++")
INCLUDE = ROOT / "ptorewrite" / "parse" / "include"
TOOLKIT = ROOT / "ptorewrite" / "parse" / "toolkit"  # stand-ins for acl/acl.h and friends


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def _core_flags(path: Path) -> list[str]:
    cube = "__DAV_CUBE__" in path.read_text()
    core = ["-D__DAV_C220_CUBE__", "-D__DAV_CUBE__"] if cube else ["-D__DAV_C220_VEC__", "-D__DAV_VEC__"]
    return ["-D__CCE_AICORE__=220", "-D__NPU_ARCH__=2201", *core]


def _compiles_as_auto(path: Path) -> subprocess.CompletedProcess:
    """clang++ -fsyntax-only in AUTO mode; a `<<<...>>>` launch (not C++ to a host compiler) is
    blanked first, as ptorewrite's front end does."""
    blanked, _ = blank_launch_configs(path.read_text(encoding="latin-1"))
    if blanked != path.read_text(encoding="latin-1"):
        path = path.with_name(path.stem + ".blanked.cpp")
        path.write_text(blanked, encoding="latin-1")
    return subprocess.run([CLANG, "-fsyntax-only", "-x", "c++", "-std=c++17", f"-I{INCLUDE}", f"-I{TOOLKIT}",
                           f"-I{path.parent}",
                           *_core_flags(path), "-D__PTO_AUTO__", str(path)],
                          check=False, capture_output=True, text=True)


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_stripped_twin_rewrites_into_a_kernel_verify_accepts(capsys, tmp_path, name):
    twin = SAMPLES / name / "manual.cpp"
    stripped = tmp_path / "auto.cpp"
    # Includes of the sample's own headers resolve from its folder.
    for extra in (SAMPLES / name).iterdir():
        if extra.suffix in (".h", ".hpp"):
            shutil.copy(extra, tmp_path / extra.name)
    status, _, err = run(capsys, "manual2auto", twin, "-o", stripped)
    assert status == 0, err
    text = stripped.read_text()
    for word in ("TASSIGN(", "set_flag(", "wait_flag(", "pipe_barrier("):
        assert word not in code_only(text)
    # What is left is the twin's text without lines: nothing else was edited.
    kept = twin.read_text().splitlines()
    assert all(line in kept for line in text.splitlines())
    rewritten = tmp_path / "manual.cpp"
    status, _, err = run(capsys, "auto2manual", stripped, "-o", rewritten)
    assert status == 0, err
    status, out, err = run(capsys, "verify", SAMPLES / name / "auto.cpp", rewritten)
    assert status == 0, out + err
    assert "outputs equivalent" in out and "0 race(s), 0 flag problem(s)" in out
    if CLANG:
        done = _compiles_as_auto(stripped)
        assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_own_output_strips_back_to_its_input_and_rewrites_the_same(capsys, tmp_path, name):
    auto = SAMPLES / name / "auto.cpp"
    first = tmp_path / "first.cpp"
    assert run(capsys, "auto2manual", auto, "-o", first)[0] == 0
    stripped = tmp_path / "auto.cpp"
    assert run(capsys, "manual2auto", first, "-o", stripped)[0] == 0
    assert stripped.read_bytes() == auto.read_bytes()
    second = tmp_path / "second.cpp"
    assert run(capsys, "auto2manual", stripped, "-o", second)[0] == 0
    assert second.read_bytes() == first.read_bytes()


@pytest.mark.parametrize("source,expected", [
    ("lang/events_manual.cpp", "manual2auto/events_manual.auto.cpp"),
    ("lang/flag_helpers_manual.cpp", "manual2auto/flag_helpers_manual.auto.cpp"),
    ("manual2auto/switch_and_shared_lines.cpp", "manual2auto/switch_and_shared_lines.auto.cpp"),
])
def test_literal_before_after(capsys, source, expected):
    status, out, err = run(capsys, "manual2auto", KERNELS / source)
    assert status == 0, err
    assert out == (KERNELS / expected).read_text()


def test_typed_events_and_flag_helpers_go_and_instructions_stay(capsys):
    status, out, _ = run(capsys, "manual2auto", KERNELS / "lang" / "events_manual.cpp")
    assert status == 0
    code = code_only(out)
    assert "Event<" not in code and "TSYNC" not in code and ".Record()" not in code
    # A recording keeps its instruction; an event argument goes with its comma; a helper's event
    # parameter goes with the template parameter only it used.
    assert "    TLOAD(lhs, gA);\n" in out and "    TADD(sum, lhs, rhs);\n" in out
    assert "template <typename TileT>\nAICORE inline void ScaleAfter(TileT &t)\n" in out
    status, out, _ = run(capsys, "manual2auto", KERNELS / "lang" / "flag_helpers_manual.cpp")
    assert status == 0
    for gone in ("SetFlag", "WaitFlag", "PrimeSlots", "DrainSlots", "pipe_barrier"):
        assert gone not in code_only(out)


@pytest.mark.skipif(not CLANG, reason="needs clang++ (the bundled headers use clang builtins)")
@pytest.mark.parametrize("expected", ["events_manual.auto.cpp", "flag_helpers_manual.auto.cpp",
                                      "switch_and_shared_lines.auto.cpp"])
def test_stripped_kernels_compile(expected):
    done = _compiles_as_auto(KERNELS / "manual2auto" / expected)
    assert done.returncode == 0, done.stderr


def test_auto2manual_on_a_manual_kernel_names_what_to_run(capsys, tmp_path):
    out = tmp_path / "out.cpp"
    status, _, err = run(capsys, "auto2manual", SAMPLES / "vec_add" / "manual.cpp", "-o", out)
    assert status == 2 and not out.exists()
    assert "already a manual-mode kernel" in err
    assert "ptorewrite check" in err and "ptorewrite manual2auto" in err
    assert "Traceback" not in err


def test_manual2auto_on_an_auto_kernel_warns_and_changes_nothing(capsys):
    auto = SAMPLES / "softmax" / "auto.cpp"
    status, out, err = run(capsys, "manual2auto", auto)
    assert status == 0
    assert out == auto.read_text()
    assert "already is an AUTO-mode kernel" in err


def test_manual2auto_in_place_leaves_an_unchanged_file_untouched(capsys, tmp_path):
    path = tmp_path / "k.cpp"
    shutil.copy(SAMPLES / "vec_add" / "auto.cpp", path)
    before = path.stat().st_mtime_ns
    assert run(capsys, "manual2auto", "-i", path)[0] == 0
    assert path.stat().st_mtime_ns == before
    shutil.copy(SAMPLES / "vec_add" / "manual.cpp", path)
    assert run(capsys, "manual2auto", "-i", path)[0] == 0
    assert "set_flag" not in path.read_text()


def test_manual2auto_bad_input_is_located_and_writes_nothing(capsys, tmp_path):
    bad = tmp_path / "bad.cpp"
    bad.write_text('#include <pto/pto-inst.hpp>\nextern "C" __global__ AICORE void k() { int x = ; }\n')
    out = tmp_path / "out.cpp"
    status, _, err = run(capsys, "manual2auto", bad, "-o", out)
    assert status == 2 and not out.exists()
    assert "bad.cpp:2:" in err and "Traceback" not in err
