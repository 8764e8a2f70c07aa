"""Multi-buffering a tile declared before its loop when every path through an iteration writes
it whole before reading it: through a helper (an early return included), a plain `if` decided by
a template argument, `if constexpr`, MultiStaged stage lambdas and an inner loop known to run.
Each rewrite is compared with its expected output beside the input, checked and verified for
several run-time values, and is faster than the same kernel with one copy. The tiles an
iteration may read from an earlier one stay single, each with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptorewrite.analysis import execution
from ptorewrite.arch import profile
from ptorewrite.diagnostics import Reporter
from ptorewrite.emulator import schedule
from ptorewrite.emulator.verify import verify
from ptorewrite.parse.frontend import FrontendOptions, load_kernel
from ptorewrite.transform.rewrite import RewriteOptions, rewrite

KERNELS = Path(__file__).resolve().parent / "kernels" / "multibuffer_paths"
A2A3 = profile("a2a3")

# kernel -> (tiles made two copies, run-time values to verify with)
COPIED = {
    "guarded_helper": ({"in", "res"}, [{"count": 0}, {"count": 1}, {"count": 4}, {"count": 6}]),
    "constant_if": ({"in", "res"}, [{}]),
    "staged": ({"k", "e", "v"}, [{"count": 0}, {"count": 3}, {"count": 6}]),
    "inner_loop": ({"t", "r"}, [{}]),
}


def _rewrite(name: str, tmp_path: Path, **options):
    auto = load_kernel(KERNELS / f"{name}.cpp")
    result = rewrite(auto, A2A3, Reporter(), RewriteOptions(**options))
    out = tmp_path / f"{name}.{'multi' if options.get('multibuffer', True) else 'single'}.cpp"
    out.write_bytes(result.text)
    (tmp_path / "common.hpp").write_bytes((KERNELS / "common.hpp").read_bytes())
    return load_kernel(KERNELS / f"{name}.cpp"), load_kernel(out, FrontendOptions(auto_mode=False)), result


def _decisions(result) -> dict[str, tuple[int, str]]:
    return {d.tile.cpp_name or d.tile.name: (d.copies, d.reason) for d in result.multibuffered}


def _cycles(kernel, values) -> int:
    return schedule.simulate(execution.unroll(kernel, A2A3, values)).total


@pytest.mark.parametrize("name", sorted(COPIED))
def test_tiles_written_first_on_every_path_get_copies_and_verify(name, tmp_path):
    tiles, runs = COPIED[name]
    auto, manual, result = _rewrite(name, tmp_path)
    assert result.text == (KERNELS / f"{name}.manual.cpp").read_bytes()
    decided = _decisions(result)
    assert {t for t, (copies, _) in decided.items() if copies == 2} == tiles, decided
    for values in runs:
        v = verify(auto, manual, A2A3, values, seed=3)
        assert v.equivalent and v.check.clean, (values, [d.format() for d in v.check.diagnostics()[:2]])
    _, single, _ = _rewrite(name, tmp_path, multibuffer=False)
    values = runs[-1]
    assert _cycles(manual, values) < _cycles(single, values), (name, _cycles(manual, values),
                                                               _cycles(single, values))


def test_each_copy_is_placed_in_the_loop_body_where_the_lane_is_named():
    """The helper takes the tiles by reference: their TASSIGN goes at the top of the caller's loop
    body (inside the first stage's lambda for MultiStaged), the helper's flags rotate with it."""
    text = (KERNELS / "guarded_helper.manual.cpp").read_text()
    loop = text.index("for (int b = 0; b < STEPS; ++b) {")
    assert text.index("TASSIGN(in, (b % 2) * 0x4000);", loop) < text.index("HalfExp(in, res", loop)
    assert "wait_flag(PIPE_V, PIPE_MTE2, (event_t)((b % 2) + 2));  // WAR in: V -> MTE2 (next iteration)" in text
    staged = (KERNELS / "staged.manual.cpp").read_text()
    run = staged.index("stages.run([&]() {")
    assert run < staged.index("TASSIGN(v, 0x10000 + (b % 2) * 0x4000);") < staged.index("ExpStage(k, e", run)


def test_reads_of_an_earlier_iteration_keep_the_tile_single(tmp_path):
    auto, manual, result = _rewrite("refused", tmp_path)
    assert result.text == (KERNELS / "refused.manual.cpp").read_bytes()
    why = "dependence: an iteration reads what an earlier one wrote"
    assert _decisions(result) == {
        "odd": (1, f"{why} (TEXP at 26:9 may read it before it is written)"),
        "patched": (1, f"{why} (TINSERT at 29:9 writes part of it)"),
        "running": (1, f"{why} (TADD at 31:9 may read it before it is written)"),
        "tail": (1, f"{why} (TADD at 39:9 may read it before it is written)"),
        "res": (2, "written afresh every iteration, used by MTE3 and V"),
        "part": (2, "written afresh every iteration, used by MTE2 and V"),
    }
    for parts in (0, 2):
        v = verify(auto, manual, A2A3, {"parts": parts}, seed=4)
        assert v.equivalent and v.check.clean


def test_an_inner_loop_that_may_not_run_does_not_count_as_a_write(tmp_path):
    src = (KERNELS / "inner_loop.cpp").read_text()
    src = src.replace("h < HALVES;", "h < halves;").replace("__gm__ float *x)", "__gm__ float *x, int halves)")
    path = tmp_path / "maybe_none.cpp"
    path.write_text(src)
    (tmp_path / "common.hpp").write_bytes((KERNELS / "common.hpp").read_bytes())
    result = rewrite(load_kernel(path), A2A3, Reporter())
    assert _decisions(result)["t"] == (1, ("dependence: an iteration reads what an earlier one wrote (TMULS at 23:9 "
                                          "may read it before it is written)"))


def test_a_run_time_if_in_the_helper_whose_other_path_reads_keeps_the_tile_single(tmp_path):
    """The same helper with a branch, taken at run time, that reads the tile before anything
    writes it: the first block past `count` would read the copy of two iterations before."""
    src = (KERNELS / "guarded_helper.cpp").read_text()
    src = src.replace("    if (b >= count)\n", "    if (b == count) {\n        TADDS(res, in, 1.0f);\n    }\n"
                      "    if (b >= count)\n")
    path = tmp_path / "reads_past_count.cpp"
    path.write_text(src)
    (tmp_path / "common.hpp").write_bytes((KERNELS / "common.hpp").read_bytes())
    result = rewrite(load_kernel(path), A2A3, Reporter())
    copies, reason = _decisions(result)["in"]
    assert copies == 1 and reason.startswith("dependence: an iteration reads what an earlier one wrote (TADDS at ")


def test_copies_without_event_ids_of_their_own_stay_single(monkeypatch, tmp_path):
    """With one event id per pipe pair the copies of `res` would be freed through one id: each
    store would still wait for the one before, as with one tile. The last such tile stays single
    and the rest are planned again; the rewrite verifies."""
    from ptorewrite.transform import sync

    monkeypatch.setattr(sync, "NUM_EVENT_IDS", 1)
    auto, manual, result = _rewrite("guarded_helper", tmp_path)
    assert _decisions(result)["res"] == (1, ("no overlap: the flags that free its copies would have one event id "
                                            "for every copy"))
    v = verify(auto, manual, A2A3, {"count": 5}, seed=2)
    assert v.equivalent and v.check.clean


def test_copies_the_rewrite_cannot_take_are_dropped_one_at_a_time(monkeypatch, tmp_path):
    """A rewrite that stops with the copies (a helper whose calls would need different lines)
    does not stop the kernel's: the tiles go back to one copy, each saying why."""
    from ptorewrite.diagnostics import PtoError
    from ptorewrite.transform import rewrite as rewrite_mod

    planned = rewrite_mod._sync_insertions

    def refuse_copies(kernel, plan, *args):
        copied = [t for t in kernel.tiles if t.lane_at is not None]
        if copied:
            raise PtoError("this helper's calls would need different lines (stand-in)", copied[0].loc)
        return planned(kernel, plan, *args)

    monkeypatch.setattr(rewrite_mod, "_sync_insertions", refuse_copies)
    auto, manual, result = _rewrite("guarded_helper", tmp_path)
    assert _decisions(result) == {
        "in": (1, "with the copies the rewrite stops at 21:5: this helper's calls would need different lines"),
        "res": (1, "with the copies the rewrite stops at 21:5: this helper's calls would need different lines"),
    }
    v = verify(auto, manual, A2A3, {"count": 6}, seed=2)
    assert v.equivalent and v.check.clean
