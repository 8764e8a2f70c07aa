"""Kernels the sync planner once got wrong or refused: each is rewritten and verified by the
emulator (same outputs as the AUTO kernel, no race, no flag problem), at runtime values the
planner never sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptorewrite.arch import profile
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.emulator.verify import verify
from ptorewrite.parse.frontend import FrontendOptions, load_kernel
from ptorewrite.transform import sync
from ptorewrite.transform.memplan import plan_memory
from ptorewrite.transform.rewrite import rewrite

KERNELS = Path(__file__).resolve().parent / "kernels" / "sync"
A2A3 = profile("a2a3")


def rewritten(name: str, tmp_path: Path):
    """(AUTO kernel, manual kernel, manual text, reporter) of a kernel in tests/kernels/sync."""
    return rewritten_file(KERNELS / name, tmp_path)


def rewritten_file(path: Path, tmp_path: Path):
    """(AUTO kernel, manual kernel, manual text, reporter) of a kernel file anywhere."""
    auto = load_kernel(path)
    reporter = Reporter()
    text = rewrite(auto, A2A3, reporter).text
    out = tmp_path / path.name
    out.write_bytes(text)
    return auto, load_kernel(out, FrontendOptions(auto_mode=False)), text.decode(), reporter


def assert_verified(auto, manual, values: dict, seed: int = 3):
    v = verify(auto, manual, A2A3, values, seed=seed)
    assert v.equivalent, (values, [str(m) for m in v.mismatches[:2]])
    assert v.check.clean, (values, [d.format() for d in v.check.diagnostics()[:2]])


def test_per_slot_flag_whose_slot_is_an_outer_loop_variable(tmp_path):
    """acc[t % 2] reused from one k to the next: the flag's id is the outer slot."""
    auto, manual, text, reporter = rewritten("ahead_flag_outer_slot.cpp", tmp_path)
    assert not reporter.warnings
    assert "(event_t)(t % 2" in text
    assert_verified(auto, manual, {})


def test_more_slots_than_event_ids_falls_back_with_a_warning(tmp_path):
    """Nine ids would be live on MTE2 -> V: the pair is planned again with one id per sync (said
    where), and the result is correct; no internal error."""
    auto, manual, text, reporter = rewritten("three_slot_chains.cpp", tmp_path)
    assert [d.message for d in reporter.warnings] == [
        "more than 8 events would be live on MTE2 -> V; using one event per sync there (less overlap)"]
    assert reporter.warnings[0].loc is not None
    assert "PIPE_ALL" not in text
    assert_verified(auto, manual, {})


def test_load_in_the_first_iteration_only_reuses_its_events_safely(tmp_path):
    """`if (i == 0) TLOAD(x) else TADDS(x, x, 1)`: the pipes alternate between iterations, so a
    flag reused by the next iteration gets its credit back; nothing is refused."""
    auto, manual, text, reporter = rewritten("first_iteration_load.cpp", tmp_path)
    assert not reporter.warnings
    assert "PIPE_ALL" not in text
    assert_verified(auto, manual, {})


def test_runtime_trip_count_and_runtime_branch_for_every_pair_of_values(tmp_path):
    """Planned once, with no value given; verified for every (n, mode) pair."""
    auto, manual, text, reporter = rewritten("runtime_mode.cpp", tmp_path)
    assert not reporter.warnings
    body = text[text.index("if (mode == 0)"):text.index("} else {")]
    assert "wait_flag(PIPE_MTE2, PIPE_V" in body  # the branch's own load is waited for
    for n in (0, 1, 2, 3, 7):
        for mode in (0, 1, 2):
            assert_verified(auto, manual, {"n": n, "mode": mode})


def test_grid_stride_loop_over_the_block_index_and_count(tmp_path):
    """`for (i = get_block_idx(); i < 8; i += get_block_num())`: no sampled block count, the
    slots stay double buffered, and every block of every grid size is right."""
    auto, manual, text, reporter = rewritten("grid_stride.cpp", tmp_path)
    assert not reporter.warnings
    assert "(event_t)(i % 2)" in text
    assert "pipe_barrier" not in text  # no store of one block overlaps another's
    for num in (1, 2, 5):
        for idx in range(num):
            assert_verified(auto, manual, {"block_idx": idx, "block_num": num})


def test_nested_runtime_loops_with_guards_and_gm_round_trips(tmp_path):
    auto, manual, _text, reporter = rewritten("nested_runtime_loops.cpp", tmp_path)
    assert not reporter.warnings
    for n in (0, 1, 2, 3, 6):
        assert_verified(auto, manual, {"n": n})


def test_a_pattern_that_does_not_settle_is_an_internal_error_with_a_reason(monkeypatch):
    """The planner never hands back a plan that fails its own check; the message says why."""
    monkeypatch.setattr(sync, "_check", lambda pt, syncs: "RAW x TLOAD@1:1 -> TADDS@2:1 unordered")
    kernel = load_kernel(KERNELS / "first_iteration_load.cpp")
    reporter = Reporter()
    mem = plan_memory(kernel, A2A3, reporter)
    with pytest.raises(PtoError) as err:
        sync.plan_syncs(kernel, A2A3, mem.address, reporter)
    message = err.value.diagnostics[0].message
    assert message.startswith("internal error: the synchronization pattern does not settle")
    assert message.endswith("RAW x TLOAD@1:1 -> TADDS@2:1 unordered")


def test_a_geometric_loop_to_a_runtime_bound(tmp_path):
    """`for (b = 1; b < n; b *= 2)`: no count of steps; planned as a loop that may stop anywhere."""
    auto, manual, _text, reporter = rewritten("geometric_runtime.cpp", tmp_path)
    assert not reporter.warnings
    for n in (0, 1, 2, 5, 100):
        assert_verified(auto, manual, {"n": n})


def test_the_output_depends_on_the_kernel_not_its_sizes(tmp_path):
    """Rewriting one kernel at two sizes gives the same text except where the sizes appear."""
    src = (KERNELS.parents[2] / "samples" / "vec_add" / "auto.cpp").read_text()
    texts = []
    for tiles in (16, 4096):
        path = tmp_path / f"vec_add_{tiles}.cpp"
        path.write_text(src.replace("VEC_ADD_TILES_PER_CORE = 16;", f"VEC_ADD_TILES_PER_CORE = {tiles};"))
        texts.append(rewrite(load_kernel(path), A2A3, Reporter()).text.decode().replace(f"= {tiles};", "= N;"))
    assert texts[0] == texts[1]
    gemm = KERNELS.parents[2] / "samples" / "gemm_double" / "auto.cpp"
    outs = []
    for k in (2048, 6144):
        kernel = load_kernel(gemm, FrontendOptions(defines=["GEMM_M=1536", f"GEMM_K={k}", "GEMM_N=1024"]))
        # The copy index of the L1 panels counts panels: (m * 4 + n) * (K / 256) + panel.
        outs.append(rewrite(kernel, A2A3, Reporter()).text.decode().replace(f"* {k // 256})", "* P)"))
    assert outs[0] == outs[1]


def test_gm_windows_that_never_meet_need_no_flag(tmp_path):
    """Loads whose blocks, over every iteration of their loops, stay clear of an earlier store
    to the same argument are not ordered after it; moved onto the stored block, they are."""
    auto, manual, text, reporter = rewritten("gm_windows_apart.cpp", tmp_path)
    assert not reporter.warnings
    assert "set_flag(PIPE_MTE3, PIPE_MTE2" not in text and "pipe_barrier(PIPE_MTE3)" not in text
    for n in (0, 1, 3):
        assert_verified(auto, manual, {"n": n})
    src = (KERNELS / "gm_windows_apart.cpp").read_text()
    moved = tmp_path / "moved.cpp"
    moved.write_text(src.replace("(i * 4 + j + 3) * E", "(i * 9 + j + 3) * E"))  # i = 2, j = 0: block 21
    assert "set_flag(PIPE_MTE3, PIPE_MTE2" in rewrite(load_kernel(moved), A2A3, Reporter()).text.decode()
    moved.write_text(src.replace("(i + 50) * E", "(i + 0) * E"))  # the first tail store is block 0
    assert "pipe_barrier(PIPE_MTE3)" in rewrite(load_kernel(moved), A2A3, Reporter()).text.decode()


def test_gm_windows_apart_for_the_values_a_loop_variable_takes(tmp_path):
    """A loop by twos, a runtime loop over every other block and a guard on the loop variable
    keep their stores off the blocks stored after them: no barrier. Let the variable take the
    value that meets them (every step, the other guard) and the barrier is back."""
    auto, manual, text, reporter = rewritten("gm_steps_and_guards.cpp", tmp_path)
    assert not reporter.warnings
    assert "pipe_barrier(PIPE_MTE3)" not in text
    assert text.count("set_flag(") == 1 and text.count("wait_flag(") == 1
    for n in (0, 1, 2, 5):
        assert_verified(auto, manual, {"n": n})
    src = (KERNELS / "gm_steps_and_guards.cpp").read_text()
    moved = tmp_path / "moved.cpp"
    for old, new in (("i < 5; i += 2", "i < 5; i += 1"), ("(2 * i) * E + 8", "(2 * i + 1) * E + 8"),
                     ("i % 2 == 1", "i % 2 == 0")):
        assert old in src
        moved.write_text(src.replace(old, new))
        moved_auto = load_kernel(moved)
        moved_text = rewrite(moved_auto, A2A3, Reporter()).text.decode()
        assert moved_text.count("pipe_barrier(PIPE_MTE3)") == 1, old
        manual_path = tmp_path / "moved_manual.cpp"
        manual_path.write_text(moved_text)
        for n in (0, 1, 3):
            assert_verified(moved_auto, load_kernel(manual_path, FrontendOptions(auto_mode=False)), {"n": n})


def test_every_tile_of_a_declaration_is_placed(tmp_path):
    auto, manual, text, reporter = rewritten("tiles_in_one_declaration.cpp", tmp_path)
    assert not reporter.warnings
    assert "TASSIGN(src, 0x" in text and "TASSIGN(dst, 0x" in text
    assert_verified(auto, manual, {})


def test_ping_pong_slot_passed_to_a_helper(tmp_path):
    """Correct whatever the slot's spelling inside the helper (how much the two slots overlap is
    the planner's slot identity, measured by `simulate`)."""
    auto, manual, text, reporter = rewritten("helper_slot_parameter.cpp", tmp_path)
    assert not reporter.warnings
    assert "PIPE_ALL" not in text
    assert_verified(auto, manual, {})


def test_a_barrier_later_in_the_producers_branch_orders_a_consumer_after_the_branch(tmp_path):
    auto, manual, text, reporter = rewritten("barrier_in_branch_loop.cpp", tmp_path)
    assert not reporter.warnings
    assert text.count("pipe_barrier(PIPE_V)") == 1  # the one inside the loop
    for mode in (0, 1):
        assert_verified(auto, manual, {"mode": mode, "n": 0})
    # With a runtime trip count the loop may stop after its first trip: then nothing orders the
    # read of r3[0] before the write after the branch, and a second barrier is needed.
    src = (KERNELS / "barrier_in_branch_loop.cpp").read_text().replace("i < 2;", "i < n;")
    runtime = tmp_path / "runtime.cpp"
    runtime.write_text(src)
    auto = load_kernel(runtime)
    text = rewrite(auto, A2A3, Reporter()).text
    assert text.decode().count("pipe_barrier(PIPE_V)") == 2
    out = tmp_path / "runtime_manual.cpp"
    out.write_bytes(text)
    manual = load_kernel(out, FrontendOptions(auto_mode=False))
    for n in (0, 1, 2, 3):
        assert_verified(auto, manual, {"mode": 1, "n": n})


def test_runtime_branch_that_loads_and_adds_before_every_store(tmp_path):
    """`for (i < n) { if (mode == 0) { TLOAD(b); TADD(x, x, b); } TSTORE(x); }`: planned with no
    value given, right for every (n, mode) pair. The reuse of b across iterations is ordered by
    flags set and waited inside the branch, not by a full barrier; and the wait before the load,
    which consumes the signal set after the last iteration's add (or the prime when no iteration
    added), leaves no MTE2 barrier between loads of b to write."""
    auto, manual, text, reporter = rewritten("runtime_branch.cpp", tmp_path)
    assert not reporter.warnings
    assert "pipe_barrier(" not in text
    # b gets two copies (every iteration that reads it loads it first): one more prime and drain.
    assert text.count("set_flag(") == 8 and text.count("wait_flag(") == 8
    branch = text[text.index("if (mode == 0)"):text.index("TSTORE(gOut, x);")]
    assert "wait_flag(PIPE_V, PIPE_MTE2" in branch and "set_flag(PIPE_V, PIPE_MTE2" in branch
    for n in (0, 1, 2, 3, 7):
        for mode in (0, 1, 2):
            assert_verified(auto, manual, {"n": n, "mode": mode})


def test_the_loops_drain_orders_the_last_branch_store_before_a_write_after_the_loop(tmp_path):
    """The drain after the loop consumes the "tile free" signal of the last iteration (or the
    prime, when no iteration ran): on every exit the tile's last store, which the branch may or
    may not have issued, is known complete, so the write after the loop needs no flag of its own
    and no V barrier; each sync left is one some (n, mode) needs."""
    from ptorewrite.fuzz.run import probe_syncs

    auto, manual, text, reporter = rewritten("drain_after_branch_store.cpp", tmp_path)
    assert not reporter.warnings
    after = text[text.index("drain: t"):]
    assert after.count("_flag(") == 2 and "pipe_barrier(" not in after
    assert text.count("set_flag(") == 4 and text.count("wait_flag(") == 4
    assert text.count("pipe_barrier(") == 1
    for n in (0, 1, 2, 3, 9):
        for mode in (0, 1):
            assert_verified(auto, manual, {"n": n, "mode": mode})
    values = [{"n": n, "mode": m} for n in (0, 1, 2, 3) for m in (0, 1)]
    count, unnoticed = probe_syncs(auto, A2A3, tmp_path, values=values)
    assert count == 4 and unnoticed == []


def test_return_at_the_top_of_the_kernel_gets_the_kernels_closing_syncs(tmp_path):
    """`if (get_block_idx() >= 2) return;` before a double-buffered loop: what closes the loop's
    ring at the kernel's end is also written before the return (inside new braces)."""
    auto, manual, text, reporter = rewritten("guard_return.cpp", tmp_path)
    assert not reporter.warnings
    start = text.index("if (get_block_idx() >= 2)", text.index("{"))
    guard = text[start:text.index("return;", start) + len("return;")]
    assert guard.startswith("if (get_block_idx() >= 2) {\n")
    assert guard.count("wait_flag(PIPE_MTE3, PIPE_MTE2") == 2
    for num in (1, 3, 4):
        for idx in range(num):
            for n in (0, 1, 3):
                assert_verified(auto, manual, {"block_idx": idx, "block_num": num, "n": n})


@pytest.mark.parametrize("path", [KERNELS / "barrier_in_branch_loop.cpp", KERNELS / "nested_runtime_loops.cpp",
                                  KERNELS.parents[2] / "samples" / "softmax" / "auto.cpp",
                                  KERNELS.parents[2] / "samples" / "rmsnorm" / "auto.cpp"])
def test_pipe_barriers_change_no_cross_pipe_ordering_and_no_flag_problem(path):
    """An ordering asked only about cross-pipe dependences and flags leaves pipe_barrier(P) out:
    with and without them the answers agree, for the plan and for the plan less any one sync."""
    from ptorewrite.analysis.gm_pairs import classify
    from ptorewrite.transform.sync_check import PlanTrace

    kernel = load_kernel(path)
    mem = plan_memory(kernel, A2A3, Reporter())
    plan = sync.plan_syncs(kernel, A2A3, mem.address, Reporter())
    assert any(s.kind == "barrier" for s in plan.syncs) and any(s.kind == "flag" for s in plan.syncs)
    pt = PlanTrace(kernel, A2A3, mem.address, classify(kernel), plan.extra)

    def answers(syncs, cross_only):
        o = pt.order(syncs, cross_only=cross_only)
        return ([id(e) for e in pt.unordered(o, pt.cross)],
                [(p.kind, p.key, id(p.first), id(p.second)) for p in o.flag_problems])

    for syncs in [plan.syncs] + [[x for x in plan.syncs if x is not s] for s in plan.syncs]:
        assert answers(syncs, True) == answers(syncs, False)


def test_a_condition_tested_twice_over_the_same_value_is_one_decision(tmp_path):
    """`if (mode == 0) { sum; store } else ...; if (mode == 0) store t;`: no run takes the second
    test one way and the first the other, so the flag before the sum's store orders the fill of t
    too, and t gets no flag of its own (it had one when the tests were taken as independent)."""
    from ptorewrite.fuzz.run import probe_syncs

    auto, manual, text, reporter = rewritten("mode_tested_twice.cpp", tmp_path)
    assert not reporter.warnings
    assert text.count("set_flag(") == 6 and text.count("wait_flag(") == 6
    assert text.count("pipe_barrier(") == 1
    assert "// RAW s, t: V -> MTE3" in text and "// RAW t: V -> MTE3" not in text
    for n in (0, 1, 2, 3, 7):
        for mode in (0, 1, 2):
            assert_verified(auto, manual, {"n": n, "mode": mode})
    count, unnoticed = probe_syncs(auto, A2A3, tmp_path)
    assert count == 5 and unnoticed == []


def test_a_condition_whose_variable_changes_between_its_tests_is_two_decisions(tmp_path):
    """The same kernel with `m = 1 - m;` between the tests of `m == 0`: mode 1 skips the sum and
    stores t, so t keeps its own flag."""
    auto, manual, text, reporter = rewritten("mode_flipped_between_tests.cpp", tmp_path)
    assert not reporter.warnings
    assert text.count("set_flag(") == 7 and text.count("wait_flag(") == 7
    assert "// RAW t: V -> MTE3" in text
    for n in (0, 1, 2, 3, 7):
        for mode in (0, 1, 2):
            assert_verified(auto, manual, {"n": n, "mode": mode})


def test_a_reuse_credit_for_a_flag_with_both_ends_at_one_inlined_helper_call():
    # A reverse flag set after an inlined helper's body and waited before it in the next
    # iteration (pto-isa's a2a3 AUTO flash attention at S1 = 8192: a WAR on the K tile across
    # its QK helper) has both ends at that block: the credit returning its event id is a reverse
    # flag of the loop around the call, not an error inside the block.
    from types import SimpleNamespace

    from ptorewrite.analysis import ir
    from ptorewrite.analysis.expr import Const
    from ptorewrite.transform.sync_model import PlannedSync, Tree, credit_candidates

    loc = ir.SourceRange("k.cpp", 3, 5, 3, 20, 0, 0)
    helper = ir.Block([ir.Assign("x", Const(1), loc)], loc, inlined=True)
    loop = ir.For("i", Const(0), Const(4), Const(1), ir.Block([helper], loc), loc)
    tree = Tree.of(SimpleNamespace(body=ir.Block([loop], loc)))
    flag = PlannedSync("flag", "MTE1", "MTE2", helper, helper, SimpleNamespace(what="kMatTile"), reverse_loop=loop)
    credits = credit_candidates(tree, flag, one_id=True)
    assert [(c.src, c.dst, c.set_at, c.wait_at, c.reverse_loop) for c in credits] == [
        ("MTE2", "MTE1", helper, helper, loop)]


def test_a_helper_that_records_its_step_keeps_the_step_tests_exact(capsys):
    """`seen = step` in a helper called from a 40-iteration loop: the stored step does not repeat,
    so the planner makes `seen` unknown; the step tests (`step == 0`, `step < steps - 1`) read
    the same expression and stay exact. The rewrite needs no full barrier (it fell back to
    pipe_barrier(PIPE_ALL) before every call when they did not)."""
    from ptorewrite.cli import main

    path = KERNELS / "helper_step_recorded.cpp"
    expected = path.with_name("helper_step_recorded.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    assert "PIPE_ALL" not in capsys.readouterr().err
    assert "PIPE_ALL" not in expected.read_text()
    assert main(["check", str(expected)]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", str(path), str(expected)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_a_helper_return_flag_set_at_every_call_is_known(capsys):
    """An inlined helper's `returned` flag is set to 0 at each call before it is read, in a loop
    whose `seen = step` does not repeat: the flag is not part of the loop's state, so no path
    skips the helper's body and the result of the last load needs no flag to the store."""
    from ptorewrite.cli import main

    path = KERNELS / "helper_early_return_step.cpp"
    expected = path.with_name("helper_early_return_step.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    assert "returned" not in capsys.readouterr().err
    assert "PIPE_MTE2, PIPE_MTE3" not in expected.read_text()
    assert main(["check", str(expected)]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    assert main(["verify", str(path), str(expected)]) == 0
    assert "outputs equivalent" in capsys.readouterr().out


def test_release_of_one_lane_is_set_after_that_lanes_last_reader(tmp_path, capsys):
    """A lane loop over two copies of a tile, then a tile placed over lane 0's copy: its load
    waits for lane 0's reader only (`if (ctx.iter == 0) set_flag(...)` inside the lane loop), not
    for lane 1's after it. Balanced for every trip count of the outer loop, 0 and 1 included."""
    from ptorewrite.cli import main

    path = KERNELS / "lane_release.cpp"
    expected = path.with_name("lane_release.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    body = text[text.index("mb.loop"):text.index("TileT update;")]
    assert "if (ctx.iter == 0) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // WAR/WAW update" in body
    # The next step's lane 1, which loads the update's copy, waits for its read; lane 0 does not.
    assert "if (ctx.iter == 1) wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR part" in body
    assert "PIPE_ALL" not in text
    auto, manual = load_kernel(path), load_kernel(expected, FrontendOptions(auto_mode=False))
    for n in (0, 1, 2, 3):
        assert_verified(auto, manual, {"n": n})


def test_release_of_the_lane_read_last_stays_after_the_lane_loop(tmp_path, capsys):
    """Three steps over two lanes (0, 1, 0): the tile laid over the lanes' copies takes, by the
    counter the lanes and it share (transform.shared_region), the copy the last step did not
    use, lane 1's, so its release is set after step 1 rather than after the loop (before the
    counter it lay over lane 0's copy, read by the last step), and the next step waits for the
    update's read in lane 1 only (11,189 -> 9,141 cycles at n = 3)."""
    from ptorewrite.cli import main

    path = KERNELS / "lane_release_odd.cpp"
    expected = path.with_name("lane_release_odd.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    body = text[text.index("mb.loop"):text.index("});")]
    assert "if (ctx.iter == 1) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // WAR/WAW update" in body
    assert "TASSIGN(update, partCopy * 0x8000);" in text
    auto, manual = load_kernel(path), load_kernel(expected, FrontendOptions(auto_mode=False))
    for n in (0, 1, 2, 3):
        assert_verified(auto, manual, {"n": n})


def test_release_after_a_loop_the_trace_shortens_is_kept_and_said(tmp_path, capsys):
    """Forty steps over two lanes: the trace keeps some of them only, so the release of the
    tile over lane 0's copy stays after the loop, and the rewrite says why."""
    from ptorewrite.cli import main

    path = KERNELS / "lane_release_long.cpp"
    expected = path.with_name("lane_release_long.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    assert "the release of update (V -> MTE2) waits for the whole loop" in capsys.readouterr().err
    text = expected.read_text()
    assert "if (ctx.iter ==" not in text
    auto, manual = load_kernel(path), load_kernel(expected, FrontendOptions(auto_mode=False))
    for n in (0, 1, 3):
        assert_verified(auto, manual, {"n": n})


def test_a_reload_in_the_first_step_waits_there_not_before_the_loop(capsys, tmp_path):
    """A tile stored before the loop is reloaded by a helper in step 0 only, its other steps
    loading another tile on the same pipe: the WAR wait goes inside the loop, issued in the first
    step right before the helper's call, so the step's own load before it runs at once (it waited
    before the loop, with the store, when the helper's other branch also loads). With one step
    the wait runs once, with none the loop is not entered; all verify clean."""
    from ptorewrite.cli import main

    path = KERNELS / "first_step_reload.cpp"
    expected = path.with_name("first_step_reload.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    head, loop = text.split("for (int k = 0; k < kSteps; ++k) {")
    assert "wait_flag(PIPE_MTE3, PIPE_MTE2" not in head
    assert "if (k == 0) wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // WAR acc: MTE3 -> MTE2\n" \
        "        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // WAR/WAW x, part: V -> MTE2 (next iteration)\n" \
        "        accumulate(k, acc, part, src);" in loop
    assert loop.index("TLOAD(x, gx)") < loop.index("if (k == 0) wait_flag(PIPE_MTE3, PIPE_MTE2")
    assert main(["verify", str(path), str(expected)]) == 0
    assert "0 race(s), 0 flag problem(s)" in capsys.readouterr().out
    (tmp_path / "auto").mkdir()
    for steps in (0, 1):
        src = tmp_path / "auto" / f"first_step_reload_{steps}.cpp"
        src.write_text(path.read_text().replace("kSteps = 4;", f"kSteps = {steps};"))
        auto, manual, text, reporter = rewritten_file(src, tmp_path)
        assert not reporter.warnings
        # One step: the wait in it. No step: the loop never runs, the flag is set and waited before it.
        assert ("if (k == 0) wait_flag(PIPE_MTE3, PIPE_MTE2" in text) == (steps == 1)
        assert text.count("set_flag(PIPE_MTE3, PIPE_MTE2") == text.count("wait_flag(PIPE_MTE3, PIPE_MTE2") <= 1
        assert_verified(auto, manual, {})


def test_a_reload_in_the_first_step_of_a_loop_that_may_not_run_sets_and_waits_there(capsys):
    """The same with a run-time step count: the loop may not run, so a set before it waited in
    the first step alone could stay pending; the set moves into the first step too, right before
    the wait, and the step's own load still runs at once. Verified for 0, 1, 2 and 5 steps."""
    from ptorewrite.cli import main

    path = KERNELS / "first_step_reload_runtime.cpp"
    expected = path.with_name("first_step_reload_runtime.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    head, loop = text.split("for (int k = 0; k < n; ++k) {")
    assert "PIPE_MTE3, PIPE_MTE2" not in head
    set_line = "if (k == 0) set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // WAR acc: MTE3 -> MTE2"
    wait_line = "if (k == 0) wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // WAR acc: MTE3 -> MTE2"
    assert loop.count(set_line) == loop.count(wait_line) == 1
    assert loop.index("TLOAD(x, gx)") < loop.index(set_line) < loop.index(wait_line) < loop.index("accumulate(")
    auto = load_kernel(path)
    manual = load_kernel(expected, FrontendOptions(auto_mode=False))
    for n in (0, 1, 2, 5):
        assert_verified(auto, manual, {"n": n})


def test_a_reload_in_the_first_step_of_a_nested_loop_that_may_not_run(capsys):
    """Rows of run-time count m, each storing the tile and reloading it in the first of n steps
    (n also a run-time value): the first step sets and waits, in every row; verified for every
    pair of m in 0..3 and n in 0, 1, 2, 5."""
    from ptorewrite.cli import main

    path = KERNELS / "first_step_reload_nested.cpp"
    expected = path.with_name("first_step_reload_nested.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    inner = expected.read_text().split("for (int k = 0; k < n; ++k) {")[1]
    assert "if (k == 0) set_flag(PIPE_MTE3, PIPE_MTE2" in inner
    assert "if (k == 0) wait_flag(PIPE_MTE3, PIPE_MTE2" in inner
    auto = load_kernel(path)
    manual = load_kernel(expected, FrontendOptions(auto_mode=False))
    for m in range(4):
        for n in (0, 1, 2, 5):
            assert_verified(auto, manual, {"m": m, "n": n})


def test_lane_flags_chain_across_loops_that_run_one_after_another(tmp_path, capsys):
    """A lane loop over a double-buffered tile, then a loop of run-time trips whose lane loop
    declares its own tile on the same two lanes: both loops' per-lane flags are one chain on one
    id per lane (one prime before the first loop, one drain after the second), so the second
    loop's first load of a lane waits for that lane's last reader only, not for every lane's
    (before: a drain after the first loop and a prime of two more ids before the second)."""
    from ptorewrite.cli import main

    path = KERNELS / "lanes_across_loops.cpp"
    expected = path.with_name("lanes_across_loops.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    between = text[text.index("mb.loop<Range<kSteps>>"):text.index("for (int t = 0")]
    assert "drain" not in between and "prime" not in between
    assert text.count("// prime:") == 2 and text.count("// drain:") == 2
    assert text.count("_flag(PIPE_V, PIPE_MTE2, (event_t)(ctx.iter % 2));  // WAR/WAW part: V -> MTE2") == 4
    assert "PIPE_ALL" not in text
    auto, manual = load_kernel(path), load_kernel(expected, FrontendOptions(auto_mode=False))
    for n in (0, 1, 2, 5):
        assert_verified(auto, manual, {"n": n})


def test_a_later_loop_without_lane_flags_waits_on_the_earlier_loops_lanes(tmp_path, capsys):
    """As above, but the later loop frees its lanes with one flag per outer iteration (a single
    tile shares lane 0's bytes, and without a counter over the lanes and that tile, as when one
    cannot be made, the lanes keep the lane loop's own index): its first iteration waits on each
    lane's id the earlier loop left pending (`if ((t == 0) && (ctx.iter < 2))`, right before the
    lane's load) and sets it again after the lane's reader, and the earlier flag is drained after
    the later loop; the later flag's prime moves before the earlier loop, where it orders
    nothing. Balanced for every trip count, 0 and 1 included."""
    from ptorewrite.cli import main
    from ptorewrite.parse.frontend import load_kernels
    from ptorewrite.transform.rewrite import RewriteOptions, rewrite_kernels

    path = KERNELS / "lanes_into_shared_loop_template.cpp"
    expected = path.with_name("lanes_into_shared_loop_template.lanes.manual.cpp")
    rewritten = rewrite_kernels(load_kernels(path), A2A3, Reporter(), RewriteOptions(shared_counters=False))
    assert rewritten.text == expected.read_bytes()
    text = expected.read_text()
    assert "Copy" not in text  # no counter over the lanes and the single tile
    lanes = text[text.index("for (int t = 0"):text.index("TileT update;")]
    guarded = "if ((t == 0) && (ctx.iter < 2)) {}_flag(PIPE_V, PIPE_MTE2, (event_t)(ctx.iter % 2));"
    assert guarded.format("wait") in lanes and guarded.format("set") in lanes
    between = text[text.index("mb.loop<Range<kSteps>>"):text.index("for (int t = 0")]
    assert "drain" not in between and "prime" not in between
    assert "PIPE_ALL" not in text
    capsys.readouterr()
    for n in (0, 1, 2, 5):
        assert main(["verify", "--set", f"n={n}", str(path), str(expected)]) == 0
        out = capsys.readouterr().out
        assert out.count("outputs equivalent") == 2 and out.count("0 race(s), 0 flag problem(s)") == 2, out


def test_kernels_rewritten_together_share_one_counter_over_a_loop_they_all_run(capsys):
    """The template twin rewritten as a whole file (both instantiations at once) makes the one
    counter over the later loop's lanes and the single tile too: its declaration is written once
    before the loop, for every instantiation that runs it, and both verify for every trip count."""
    from ptorewrite.cli import main

    path = KERNELS / "lanes_into_shared_loop_template.cpp"
    expected = path.with_name("lanes_into_shared_loop_template.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    assert text.count("uint32_t partCopy = 1;") == 1 and "if constexpr" not in text
    assert "TASSIGN(update, partCopy * 0x8000);" in text
    capsys.readouterr()
    for n in (0, 1, 2, 5):
        assert main(["verify", "--set", f"n={n}", str(path), str(expected)]) == 0
        out = capsys.readouterr().out
        assert out.count("outputs equivalent") == 2 and out.count("0 race(s), 0 flag problem(s)") == 2, out


def test_a_later_loop_with_one_counter_over_its_lanes_and_the_single_tile_takes_the_earlier_lanes(
        tmp_path, capsys):
    """The same kernel rewritten alone: the later loop's lanes and the single tile over lane 0
    take their copies from one counter (`partCopy`), whose per-copy flags continue the earlier
    loop's lane flags (the same ids, primed once before the earlier loop, drained once after the
    later one). Faster than the first-iteration lane waits of the template twin above."""
    from ptorewrite.cli import main

    path = KERNELS / "lanes_into_shared_loop.cpp"
    expected = path.with_name("lanes_into_shared_loop.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    lanes = text[text.index("for (int t = 0"):text.index("TileT update;")]
    assert "wait_flag(PIPE_V, PIPE_MTE2, (event_t)(partCopy));" in lanes
    assert "set_flag(PIPE_V, PIPE_MTE2, (event_t)(partCopy));" in lanes
    between = text[text.index("mb.loop<Range<kSteps>>"):text.index("for (int t = 0")]
    assert "drain" not in between and "PIPE_ALL" not in text
    assert text.count("prime: part free at start (V -> MTE2)") == 3
    auto, manual = load_kernel(path), load_kernel(expected, FrontendOptions(auto_mode=False))
    for n in (0, 1, 2, 5):
        assert_verified(auto, manual, {"n": n})


def test_a_consumer_in_each_branch_waits_inside_its_helper_after_the_work_before_it(capsys, tmp_path):
    """Both branches of the step's `if` fold the panel through a helper that first rescales the
    sum: the wait for the panel's load goes inside each helper, right before the add, and the
    load's one set after it serves both (the two branch flags share one id, so their guards fold
    away). The rescale then runs while the load is in flight."""
    from ptorewrite.cli import main

    path = KERNELS / "branch_consumer_in_helper.cpp"
    expected = path.with_name("branch_consumer_in_helper.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    for helper in ("fold(TileT", "fold_last(TileT"):
        body = text[text.index(helper):]
        body = body[:body.index("}")]
        assert "    TMULS(sum, sum, 0.5f);\n    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW panel: MTE2 -> V\n" in body
    loop = text[text.index("for (int k"):]
    assert "        TLOAD(panel, g);\n        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW panel: MTE2 -> V\n" in loop
    assert "if (k < 4) set_flag" not in loop and "wait_flag(PIPE_MTE2, PIPE_V" not in loop
    auto, manual, _, _ = rewritten("branch_consumer_in_helper.cpp", tmp_path)
    assert_verified(auto, manual, {})


def test_a_multibuffered_panel_keeps_its_per_copy_wait_before_the_branches(capsys, tmp_path):
    """With two copies of the panel the load's flag takes one id per copy, which the helpers
    cannot spell: the wait stays before the `if`, and the next load overlaps this step's fold."""
    from ptorewrite.cli import main

    path = KERNELS / "branch_consumer_multibuffered.cpp"
    expected = path.with_name("branch_consumer_multibuffered.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    assert "wait_flag(PIPE_MTE2, PIPE_V, (event_t)((k - 1) % 2));  // RAW panel: MTE2 -> V\n" in text
    assert "wait_flag(PIPE_V, PIPE_MTE2, (event_t)((k - 1) % 2));  // WAR panel: V -> MTE2" in text
    assert "wait_flag(PIPE_MTE2, PIPE_V" not in text[text.index("fold(TileT"):text.index("extern")]
    auto, manual, _, _ = rewritten("branch_consumer_multibuffered.cpp", tmp_path)
    assert_verified(auto, manual, {})


def test_a_guarded_producer_sets_in_its_branch_for_a_reader_with_branches_of_its_own(capsys, tmp_path):
    """The store to `shared` runs under `if (lane == 0 && t % 2 == 0)` in a loop of one lane;
    its reader loads in both branches of `if (t == 0)`. The flag is set inside the store's branch
    and waited before the reader's `if` under `(t % 2) == 0` (the lane loop's one value read into
    the condition), so the load does not wait for the long store after the branch."""
    from ptorewrite.cli import main

    path = KERNELS / "guarded_store_then_branch_load.cpp"
    expected = path.with_name("guarded_store_then_branch_load.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    text = expected.read_text()
    assert "        TSTORE(s, x);\n        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // RAW s: MTE3 -> MTE2\n    }" in text
    assert "    if ((t % 2) == 0) wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // RAW s: MTE3 -> MTE2\n" \
        "    if (t == 0) {" in text
    assert "true &&" not in text
    auto, manual, _, _ = rewritten("guarded_store_then_branch_load.cpp", tmp_path)
    assert_verified(auto, manual, {})


def test_a_credit_one_loop_of_helper_calls_needs_is_one_chain_through_both_loops(capsys, tmp_path):
    """`step` is called from a loop over one shared panel and from a later loop over a tile
    array. Its load's wait goes inside `fold`/`fold_last` (after their first multiply) in both
    copies; the credit back from V to MTE2 the second loop needs for that one id is written in
    the helper, so the first loop runs it too, and its two copies are one chain: one prime
    before the first loop and one drain after the second (a drain and a prime between the loops
    could lose a signal). Before, the copies disagreed and the wait went back before the `if`."""
    from ptorewrite.cli import main
    from ptorewrite.transform.rewrite import RewriteOptions

    path = KERNELS / "branch_consumer_two_loops.cpp"
    expected = path.with_name("branch_consumer_two_loops.manual.cpp")
    assert main(["auto2manual", "--no-multibuffer", str(path), "--check", str(expected)]) == 0, \
        capsys.readouterr().out
    text = expected.read_text()
    helpers = text[:text.index("AICORE inline void step")]
    assert helpers.count("wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW panel: MTE2 -> V") == 2
    body = text[text.index("extern"):]
    assert body.count("set_flag(PIPE_V, PIPE_MTE2") == 1 and "set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime" in body
    assert body.count("wait_flag(PIPE_V, PIPE_MTE2") == 1 and "wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain" in body
    assert body.index("// prime: panel") < body.index("for (int k = 1;") < body.index("for (int k = kSteps - 2;") \
        < body.index("// drain: panel")
    auto = load_kernel(path)
    manual_text = rewrite(auto, A2A3, Reporter(), RewriteOptions(multibuffer=False)).text
    out = tmp_path / path.name
    out.write_bytes(manual_text)
    assert_verified(auto, load_kernel(out, FrontendOptions(auto_mode=False)), {})


def test_copies_of_a_helper_keep_no_flag_the_shared_text_already_covers(capsys, tmp_path):
    """`step` is called from two loops and its copies are planned apart; the wait one copy needs
    before the `if`, written in both, covers the other copy's wait inside `fold`, which is left
    out with what was said about it: one set and one wait for the load."""
    from ptorewrite.cli import main

    path = KERNELS / "branch_consumer_in_shared_helper.cpp"
    expected = path.with_name("branch_consumer_in_shared_helper.manual.cpp")
    assert main(["auto2manual", str(path), "--check", str(expected)]) == 0, capsys.readouterr().out
    err = capsys.readouterr().err
    assert "MTE2 -> V flag is needed by the helper's call" not in err, err
    text = expected.read_text()
    assert text.count("set_flag(PIPE_MTE2, PIPE_V") == 2  # the load's, and the sum's before the loops
    assert text.count("wait_flag(PIPE_MTE2, PIPE_V") == 2
    auto, manual, _, _ = rewritten("branch_consumer_in_shared_helper.cpp", tmp_path)
    assert_verified(auto, manual, {})
