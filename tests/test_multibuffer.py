"""Automatic multi-buffering: single tiles each iteration writes afresh get one copy per
iteration modulo N; the rewrite verifies and runs faster, and the memory report says what was
done and why not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ptorewrite.analysis import execution
from ptorewrite.arch import profile
from ptorewrite.diagnostics import Reporter
from ptorewrite.emulator import schedule
from ptorewrite.emulator.verify import verify
from ptorewrite.parse.frontend import FrontendOptions, load_kernel
from ptorewrite.transform.memory_report import format_memory_report
from ptorewrite.transform.rewrite import RewriteOptions, rewrite

KERNELS = Path(__file__).resolve().parent / "kernels" / "tilings"
A2A3 = profile("a2a3")


def _rewrite(path: Path, tmp_path: Path, arch=A2A3, **options):
    auto = load_kernel(path)
    result = rewrite(auto, arch, Reporter(), RewriteOptions(**options))
    out = tmp_path / f"{path.stem}.{len(list(tmp_path.iterdir()))}.cpp"
    out.write_bytes(result.text)
    manual = load_kernel(out, FrontendOptions(auto_mode=False))
    return load_kernel(path), manual, result


def _cycles(kernel) -> int:
    return schedule.simulate(execution.unroll(kernel, A2A3, {})).total


@pytest.mark.parametrize("name", ["single_gemm.cpp", "single_vector.cpp"])
def test_multi_buffering_a_single_buffered_loop_is_correct_and_at_least_1_3x_faster(name, tmp_path):
    auto, multi, result = _rewrite(KERNELS / name, tmp_path)
    _, single, _ = _rewrite(KERNELS / name, tmp_path, multibuffer=False)
    v = verify(auto, multi, A2A3, {}, seed=2)
    assert v.equivalent and v.check.clean, [d.format() for d in v.check.diagnostics()[:2]]
    assert any(d.copies == 2 for d in result.multibuffered)
    assert _cycles(single) >= 1.3 * _cycles(multi), (_cycles(single), _cycles(multi))


def test_the_copy_is_chosen_per_iteration_and_flags_are_per_copy(tmp_path):
    _, _, result = _rewrite(KERNELS / "single_vector.cpp", tmp_path)
    text = result.text.decode()
    lines = [x.strip() for x in text.splitlines()]
    loop = lines.index("for (int i = 0; i < STEPS; ++i) {")
    assert "TASSIGN(a, (i % 2) * 0x4000);  // UB 2 x 16 KiB, one copy per iteration (multi-buffered)" in \
        lines[loop:]
    assert any(x.startswith("wait_flag(PIPE_V, PIPE_MTE2, (event_t)(i % 2") for x in lines)
    report = format_memory_report(result.plan.kernel, result.plan, result.multibuffered)
    assert "  a: 2 copies in the loop at" in report
    assert "written afresh every iteration, used by MTE2 and V" in report


def test_three_copies_and_off(tmp_path):
    auto, three, result = _rewrite(KERNELS / "single_vector.cpp", tmp_path, buffers=3)
    assert "(i % 3) * 0x4000" in result.text.decode()
    v = verify(auto, three, A2A3, {}, seed=1)
    assert v.equivalent and v.check.clean
    _, _, off = _rewrite(KERNELS / "single_vector.cpp", tmp_path, multibuffer=False)
    assert "% 2" not in off.text.decode() and not off.multibuffered


def test_no_copies_where_they_do_not_fit_or_a_value_flows_between_iterations(tmp_path):
    small = A2A3.with_capacity({"UB": 48 * 1024})
    _, _, result = _rewrite(KERNELS / "single_vector.cpp", tmp_path, arch=small)
    reasons = {d.tile.cpp_name or d.tile.name: (d.copies, d.reason) for d in result.multibuffered}
    assert reasons["a"][0] == 2
    assert reasons["r"] == (1, "capacity: 2 copies do not fit")
    src = (KERNELS / "single_vector.cpp").read_text().replace("TEXP(r, a);", "TADD(r, r, a);")
    carried = tmp_path / "carried.cpp"
    carried.write_text(src)
    _, _, result = _rewrite(carried, tmp_path)
    reasons = {d.tile.cpp_name or d.tile.name: (d.copies, d.reason) for d in result.multibuffered}
    assert reasons["r"] == (1, ("dependence: an iteration reads what an earlier one wrote (TADD at 20:9 may read "
                               "it before it is written)"))


def test_cli_flags(tmp_path):
    out = tmp_path / "o.cpp"
    run = subprocess.run([sys.executable, "-m", "ptorewrite", "auto2manual", str(KERNELS / "single_vector.cpp"),
                          "-o", str(out), "--buffers", "3", "--memory-report"], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert "a: 3 copies in the loop" in run.stdout and "% 3" in out.read_text()
    run = subprocess.run([sys.executable, "-m", "ptorewrite", "auto2manual", str(KERNELS / "single_vector.cpp"),
                          "-o", str(out), "--no-multibuffer"], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and "% 2" not in out.read_text()
    run = subprocess.run([sys.executable, "-m", "ptorewrite", "auto2manual", str(KERNELS / "single_vector.cpp"),
                          "--buffers", "0"], capture_output=True, text=True, check=False)
    assert run.returncode == 2 and "--buffers takes" in run.stderr


def test_no_copies_of_a_tile_declared_in_a_helper_inside_the_loop(tmp_path):
    """The helper's declaration cannot name the loop's copy index: one copy, placed where it is
    declared, and the rewrite verifies."""
    path = KERNELS / "helper_tile_in_loop.cpp"
    auto, manual, result = _rewrite(path, tmp_path)
    reasons = {d.tile.cpp_name or d.tile.name: (d.copies, d.reason) for d in result.multibuffered}
    assert reasons["rows"] == (1, "declared in a helper or a block inside the loop, where no copy index can be named")
    text = result.text.decode()
    decl = text.index("RowsT rows;")
    assert text.index("TASSIGN(rows, 0x0);") > decl and text.count("TASSIGN(rows") == 1
    v = verify(auto, manual, A2A3, {}, seed=1)
    assert v.equivalent and v.check.clean
