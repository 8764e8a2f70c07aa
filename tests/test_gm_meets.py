"""A GM "may" pair of an access in a loop and one at a constant address outside it depends only
at the iterations whose windows meet (and those whole loop periods away, which the bounded
trace's iterations stand for)."""

from __future__ import annotations

from pathlib import Path

from ptorewrite.analysis.gm_pairs import classify
from ptorewrite.arch import profile
from ptorewrite.diagnostics import Reporter
from ptorewrite.emulator.verify import verify
from ptorewrite.fuzz.run import probe_syncs
from ptorewrite.parse.frontend import FrontendOptions, load_kernel
from ptorewrite.transform.rewrite import rewrite

A2A3 = profile("a2a3")
KERNEL = Path(__file__).resolve().parent / "kernels" / "sync" / "may_pair_meets_late.cpp"


def _rewritten(path: Path, tmp_path: Path):
    auto = load_kernel(path)
    reporter = Reporter()
    text = rewrite(auto, A2A3, reporter).text
    out = tmp_path / ("manual_" + path.name)
    out.write_bytes(text)
    assert not reporter.warnings
    return auto, load_kernel(out, FrontendOptions(auto_mode=False)), text.decode()


def _verified(auto, manual, n: int) -> None:
    v = verify(auto, manual, A2A3, {"n": n}, seed=7)
    assert v.equivalent, (n, [str(m) for m in v.mismatches[:2]])
    assert v.check.clean, (n, [d.format() for d in v.check.diagnostics()[:2]])


def test_the_values_at_which_a_loop_access_meets_a_constant_window():
    kernel = load_kernel(KERNEL)
    ops = {s.uid: s.op for s in kernel.instructions()}
    gm = classify(kernel)
    listed = {(ops[a], ops[b]): v for (a, b), v in gm.meets.items() if v is not None}
    assert list(listed) == [("TSTORE", "TLOAD")]
    loop, values = listed["TSTORE", "TLOAD"]
    assert loop.var.startswith("i") and values == {20}


def test_a_read_only_the_twentieth_overwrite_meets_needs_no_flag(tmp_path):
    auto, manual, text = _rewritten(KERNEL, tmp_path)
    assert "MTE2 -> MTE3" not in text
    assert text.count("set_flag(") == 7 and text.count("pipe_barrier(") == 1
    for n in (0, 1, 2, 3, 7, 20, 21, 22):
        _verified(auto, manual, n)
    count, unnoticed = probe_syncs(auto, A2A3, tmp_path)
    assert count == 5 and unnoticed == []


def test_a_read_the_first_overwrite_meets_keeps_its_flag(tmp_path):
    """Block 0 read: the first iteration's overwrite meets it and nothing else orders that one."""
    path = tmp_path / "first.cpp"
    path.write_text(KERNEL.read_text().replace("GmT gRead(out + 20 * 512);", "GmT gRead(out);"))
    auto, manual, text = _rewritten(path, tmp_path)
    assert "// WAR gBlock: MTE2 -> MTE3" in text
    for n in (0, 1, 2, 3):
        _verified(auto, manual, n)


def test_a_read_that_the_loops_period_maps_onto_the_first_iteration_keeps_its_flag(tmp_path):
    """Block 21: 21 % 3 == 0, so the trace's first iteration stands for i == 21 and the flag stays
    (conservative: the chain through the vector work orders that one too)."""
    path = tmp_path / "block21.cpp"
    path.write_text(KERNEL.read_text().replace("out + 20 * 512", "out + 21 * 512"))
    auto, manual, text = _rewritten(path, tmp_path)
    assert "// WAR gBlock: MTE2 -> MTE3" in text
    for n in (0, 1, 22):
        _verified(auto, manual, n)
