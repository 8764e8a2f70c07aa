"""The pieces of the sync planner's bounded analysis: abstract values, loop periods and
breakpoints, the GM dependence test, and the bounded trace itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptorewrite.analysis import bounded, ir, periodic
from ptorewrite.analysis.abstract import UNKNOWN, Compiled, Residue, evaluate, join
from ptorewrite.analysis.bounded import bounded_trace
from ptorewrite.analysis.expr import BinOp, Const, Var
from ptorewrite.analysis.gm_pairs import classify, linear
from ptorewrite.arch import profile
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.parse.frontend import load_kernel
from ptorewrite.transform.memplan import plan_memory

A2A3 = profile("a2a3")


def b(op, x, y):
    return BinOp(op, x, y)


I, N, M = Var("i"), Var("n"), Var("mode")


# ---------------------------------------------------------------- abstract values


@pytest.mark.parametrize("env,want", [
    ({"i": 3, "n": 4}, True),
    ({"i": 2, "n": 4}, False),
    ({"i": 3, "n": UNKNOWN}, UNKNOWN),
])
def test_a_condition_on_an_unknown_value_is_unknown(env, want):
    e = b("==", I, b("-", N, Const(1)))
    assert evaluate(e, env) is want or evaluate(e, env) == want
    assert Compiled(e)(env) is want or Compiled(e)(env) == want


def test_unknown_is_decided_by_the_other_operand_where_c_would_be():
    assert evaluate(b("&&", b("==", M, Const(0)), Const(False)), {"mode": UNKNOWN}) is False
    assert evaluate(b("||", Const(True), b("==", M, Const(0))), {"mode": UNKNOWN}) is True
    assert evaluate(b("*", M, Const(0)), {"mode": UNKNOWN}) == 0


def test_a_residue_is_exact_under_a_modulus_that_divides_it():
    env = {"i": Residue(1, 2)}
    assert evaluate(b("%", I, Const(2)), env) == 1
    assert evaluate(b("%", b("+", I, Const(1)), Const(2)), env) == 0
    assert evaluate(b("%", I, Const(3)), env) is UNKNOWN  # 3 does not divide 2
    assert evaluate(b("<", I, Const(8)), env) is UNKNOWN
    assert Compiled(b("==", I, Const(1)))(env) is UNKNOWN  # never Python's equality of objects


def test_c_division_and_modulus():
    assert Compiled(b("/", Const(-7), Const(2)))({}) == -3
    assert Compiled(b("%", Const(-7), Const(2)))({}) == -1
    assert evaluate(b("/", Const(1), Const(0)), {}) is UNKNOWN


def test_join_keeps_only_what_both_sides_agree_on():
    assert join(1, 1) == 1
    assert join(1, 2) is UNKNOWN
    assert join(True, 1) is UNKNOWN


# ---------------------------------------------------------------- periods and breakpoints


def _loop(body: list[ir.Stmt], var="i") -> ir.For:
    return ir.For(var, Const(0), Const(100), Const(1), ir.Block(body), None)


def _if(cond) -> ir.If:
    return ir.If(cond, ir.Block([]), None, None)


def test_period_of_slot_indices_and_breakpoints_of_guards():
    loop = _loop([_if(b("==", b("%", I, Const(2)), Const(0))), _if(b("==", b("%", I, Const(3)), Const(1))),
                  _if(b("==", I, Const(0))), _if(b("==", I, Const(99)))])
    shape = periodic.analyse(loop, 0, 1, {})
    assert shape.period == 6
    assert (0, 0) in shape.breaks and (99, 99) in shape.breaks
    assert not shape.irregular


def test_a_coefficient_shares_the_modulus():
    # ((m * 4 + n) * 24 + i) % 2 repeats every 2 iterations of i; (i * 2) % 2 never changes.
    lane = b("%", b("+", b("*", b("+", b("*", Var("m"), Const(4)), Var("n")), Const(24)), I), Const(2))
    assert periodic.analyse(_loop([_if(lane)]), 0, 1, {"m": 1, "n": 2}).period == 2
    assert periodic.analyse(_loop([_if(b("%", b("*", I, Const(2)), Const(2)))]), 0, 1, {}).period == 1


def test_what_does_not_repeat_is_irregular():
    e1 = b("%", b("/", I, Const(3)), Const(2))
    e2 = b("<", I, N)  # n unknown: a runtime condition
    shape = periodic.analyse(_loop([_if(e1), _if(e2)]), 0, 1, {"n": UNKNOWN})
    assert shape.irregular == {id(e1), id(e2)}
    assert [e for e, _ in shape.irregular_where] == [e1]  # only the first is worth a warning


def test_a_ping_pong_variable_has_the_period_of_its_cycle():
    flip = ir.Assign("p", b("-", Const(1), Var("p")), None)
    use = _if(b("==", Var("p"), Const(0)))
    shape = periodic.analyse(_loop([use, flip]), 0, 1, {"p": 0})
    assert shape.period == 2 and not shape.irregular


@pytest.mark.parametrize("running", ["affine", "accumulated"])
def test_a_call_counter_keeps_its_cycle_beside_a_running_count(running):
    # A helper's call counter (`copy = (copy + 1) % 2`, stepped in the helper's own loop of one
    # step, twice per iteration) beside a count that never repeats: a FIFO's tile id set from the
    # loop index, or a count of blocks issued. The counter's updates read neither, so it keeps
    # its period-2 cycle (the planner knows which copy each call takes in every kept iteration)
    # and only the count is irregular.
    inner = ir.For("k", Const(0), Const(1), Const(1), ir.Block([ir.Assign("copy", b("%", b("+", Var("copy"), Const(1)),
                                                                                     Const(2)), None)]), None)
    again = ir.For("k", Const(0), Const(1), Const(1), ir.Block([ir.Assign("copy", b("%", b("+", Var("copy"), Const(1)),
                                                                                     Const(2)), None)]), None)
    value = b("+", I, Const(4)) if running == "affine" else b("+", Var("ticket"), Const(1))
    ticket = ir.Assign("ticket", value, None)
    use = _if(b("==", Var("copy"), Const(0)))
    late = _if(b("==", Var("ticket"), Const(9)))
    shape = periodic.analyse(_loop([ticket, inner, use, again, late]), 0, 1, {"copy": 1, "ticket": 0})
    assert id(use.cond) not in shape.irregular and id(late.cond) in shape.irregular
    assert id(inner.body.stmts[0]) not in shape.irregular and id(again.body.stmts[0]) not in shape.irregular
    # Stepped only when the count says so, the counter has no cycle either.
    guarded = ir.If(b("==", Var("ticket"), Const(3)), ir.Block([ir.Assign(
        "copy", b("%", b("+", Var("copy"), Const(1)), Const(2)), None)]), None, None)
    shape = periodic.analyse(_loop([ticket, guarded, use]), 0, 1, {"copy": 1, "ticket": 0})
    assert id(use.cond) in shape.irregular


def test_a_value_stored_each_iteration_is_forced_at_its_assignment_not_where_it_is_shared():
    # `seen = i` (an inlined helper storing its step parameter) does not repeat, but the same
    # expression object is the step the helper tests: `i == 0` keeps its breakpoint.
    store = ir.Assign("seen", I, None)
    first = _if(b("==", I, Const(0)))
    shape = periodic.analyse(_loop([store, first]), 0, 1, {"seen": 0})
    assert id(store) in shape.irregular and id(I) not in shape.irregular
    assert (0, 0) in shape.breaks


def test_a_scalar_set_afresh_each_iteration_has_its_values_form():
    # `status` is assigned once per iteration before it is read; `seen` carries a value that
    # does not repeat. The status keeps its own form (period 2), whatever `seen` does.
    status = ir.Assign("status", b("%", I, Const(2)), None)
    use = _if(b("==", Var("status"), Const(0)))
    seen = ir.Assign("seen", b("+", Var("seen"), I), None)
    late = _if(b("==", Var("seen"), Const(3)))
    shape = periodic.analyse(_loop([status, use, seen, late]), 0, 1, {"seen": 0})
    assert shape.period == 2
    assert id(use.cond) not in shape.irregular and id(late.cond) in shape.irregular
    # Read before it is set (the previous iteration's value), it is state like any other: its
    # updates read no `seen`, so it keeps a cycle of its own while `seen` has none.
    early = _if(b("==", Var("status"), Const(0)))
    shape = periodic.analyse(_loop([early, status, seen]), 0, 1, {"seen": 0, "status": 0})
    assert id(early.cond) not in shape.irregular and id(seen) in shape.irregular
    # Updated from `seen`, it has none either.
    mixed = ir.Assign("status", b("%", b("+", I, Var("seen")), Const(2)), None)
    shape = periodic.analyse(_loop([early, mixed, seen]), 0, 1, {"seen": 0, "status": 0})
    assert id(early.cond) in shape.irregular
    # Set only under a condition, likewise.
    guarded = ir.If(b("==", I, Const(5)), ir.Block([status]), None, None)
    shape = periodic.analyse(_loop([guarded, use, seen]), 0, 1, {"seen": 0, "status": 0})
    assert id(use.cond) in shape.irregular


# ---------------------------------------------------------------- GM dependence test


def test_linear_forms():
    assert linear(b("+", b("*", I, Const(512)), b("*", Var("b"), Const(4)))) == ({"i": 512, "b": 4}, 0)
    assert linear(b("*", I, I)) is None
    assert linear(b("%", I, Const(2))) is None


def _kernel(tmp_path: Path, body: str, args: str = "") -> ir.Kernel:
    text = f"""#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in{args})
{{
    TileT x[2];
{body}
}}
"""
    p = tmp_path / "k.cpp"
    p.write_text(text)
    return load_kernel(p)


def test_stores_to_distinct_tiles_of_one_output_never_overlap(tmp_path):
    k = _kernel(tmp_path, """    for (int i = 0; i < 64; ++i) {
        GmT g(in + i * 512);
        GmT o(out + i * 512);
        TLOAD(x[i % 2], g);
        TSTORE(o, x[i % 2]);
    }""")
    gm = classify(k)
    assert gm.written == {"out"} and not gm.may and not gm.margin


def test_a_round_trip_two_tiles_back_is_exact_with_its_distance(tmp_path):
    k = _kernel(tmp_path, """    for (int i = 0; i < 64; ++i) {
        GmT back(out + i * 512);
        GmT o(out + (i + 2) * 512);
        TLOAD(x[i % 2], back);
        TSTORE(o, x[i % 2]);
    }""")
    gm = classify(k)
    assert not gm.may
    assert list(gm.margin.values()) == [2]


def test_addresses_the_test_cannot_pin_down_are_may_pairs(tmp_path):
    k = _kernel(tmp_path, """    for (int i = 0; i < n; ++i) {
        GmT back(out + (i * i) * 512);
        GmT o(out + i * 512);
        TLOAD(x[i % 2], back);
        TSTORE(o, x[i % 2]);
    }""", ", int n")
    gm = classify(k)
    assert len(gm.may) == 2


# ---------------------------------------------------------------- the bounded trace


def _trace(k: ir.Kernel, extra=0, check=False):
    mem = plan_memory(k, A2A3, Reporter())
    return bounded_trace(k, A2A3, mem.address, extra, check=check)


def test_a_long_loop_runs_a_bounded_number_of_iterations_whatever_its_trip_count(tmp_path):
    body = """    for (int i = 0; i < {n}; ++i) {{
        GmT g(in + i * 512);
        GmT o(out + i * 512);
        TLOAD(x[i % 2], g);
        TADDS(x[i % 2], x[i % 2], 1.0f);
        TSTORE(o, x[i % 2]);
    }}"""
    sizes = []
    for n in (64, 4096, 1000000000):
        t = _trace(_kernel(tmp_path, body.format(n=n)))
        (run,) = t.runs
        assert run.trips == n and run.period == 2
        sizes.append(len(t.ops))
    assert sizes[0] == sizes[1] == sizes[2] < 20
    assert len(_trace(_kernel(tmp_path, body.format(n=64)), extra=1).ops) > sizes[0]  # one period more


@pytest.mark.parametrize("kept,trips,breaks,want", [
    (list(range(10)), 10, (), None),  # nothing left out
    ([0, 1, 2, 63], 64, (), 4),  # start window and the remainder: one stretch
    ([0, 1, 2], 64, (), 3),  # left out up to the end
    ([0, 1, 2, 3, 20, 21, 22, 23], 24, ((0, 0), (23, 23)), 6),  # between two breakpoints
    ([0, 1, 2, 3, 4, 40, 41, 42, 43, 44, 45], 64, ((4, 4),), 6),  # after a breakpoint, to the end
])
def test_the_shortest_stretch_around_left_out_iterations(kept, trips, breaks, want):
    assert bounded._shortest_stretch(kept, trips, breaks) == want


def _ping_pong(n: object, guards: str = "        TADDS(x[i % 2], x[i % 2], 1.0f);\n") -> str:
    return (f"    for (int i = 0; i < {n}; ++i) {{\n"
            "        GmT g(in + i * 512);\n"
            "        GmT o(out + i * 512);\n"
            "        TLOAD(x[i % 2], g);\n"
            f"{guards}"
            "        TSTORE(o, x[i % 2]);\n"
            "    }")


def test_a_checking_trace_keeps_one_more_period_only_where_a_stretch_is_short(tmp_path):
    """P = 2, D = 1: a stretch with left-out iterations must keep 2P + D - 1 = 4. Run to the end
    of 65 trips, the start window (3) and no remainder keep 3: the checking trace keeps one more
    period. 64 trips leave a remainder of 1 (4 kept), and guards on the first and last iteration
    bound the stretch by windows on both sides (6 kept): the checking trace is the planning one."""
    def runs(body: str, check: bool):
        t = _trace(_kernel(tmp_path, body), check=check)
        return [(r.kept, r.removed) for r in t.runs], len(t.short)

    guards = ("        if (i == 0) { TADDS(x[i % 2], x[i % 2], 1.0f); }\n"
              "        if (i == 64) { TADDS(x[i % 2], x[i % 2], 2.0f); }\n")
    assert runs(_ping_pong(65), False) == ([(3, 62)], 1)
    assert runs(_ping_pong(65), True) == ([(5, 60)], 1)
    for body in (_ping_pong(64), _ping_pong(65, guards)):
        assert runs(body, False) == runs(body, True) and runs(body, False)[1] == 0


def test_an_open_loop_of_period_two_is_checked_with_one_more_period(tmp_path):
    """The last stretch of a path that stops after H - P iterations keeps the margin P + D = 3
    of a loop to a runtime bound; the argument needs 4."""
    k = _kernel(tmp_path, _ping_pong("n"), ", int n")
    plan, check = _trace(k), _trace(k, check=True)
    assert len(plan.short) == 1 and (plan.runs[0].kept, check.runs[0].kept) == (4, 6)


@pytest.mark.parametrize("n,traces", [(64, 1), (65, 2)])
def test_the_plan_is_checked_on_the_planning_trace_when_no_stretch_is_short(tmp_path, monkeypatch, n, traces):
    from ptorewrite.transform import sync, sync_check

    built = []
    monkeypatch.setattr(sync_check, "bounded_trace", lambda *a: built.append(a[5]) or bounded_trace(*a))
    k = _kernel(tmp_path, _ping_pong(n))
    mem = plan_memory(k, A2A3, Reporter())
    plan = sync.plan_syncs(k, A2A3, mem.address, Reporter())
    assert len(built) == traces and built[-1] is (traces == 2) and plan.extra == 0
    assert len([s for s in plan.syncs if s.kind == "flag"]) >= 2


def test_runtime_conditions_fork_and_runtime_loops_may_stop_anywhere(tmp_path):
    k = _kernel(tmp_path, """    for (int i = 0; i < n; ++i) {
        GmT g(in + i * 512);
        TLOAD(x[i % 2], g);
        if (mode == 0) {
            TADDS(x[i % 2], x[i % 2], 1.0f);
        }
    }""", ", int n, int mode")
    t = _trace(k)
    kinds = [c.kind for c in t.controls]
    assert kinds.count("exit") == t.runs[0].kept  # before every iteration it may stop
    assert kinds.count("alt") == t.runs[0].kept  # every iteration takes both branches
    assert {op.stmt.op for op in t.ops} == {"TLOAD", "TADDS"}


def test_a_trace_over_its_item_limit_stops_with_a_message(tmp_path, monkeypatch):
    """Only a deep nest makes a bounded trace long; it stops, naming the loops, instead of running on."""
    k = _kernel(tmp_path, """    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            GmT g(in + (i + j) * 512);
            TLOAD(x[j % 2], g);
            TADDS(x[j % 2], x[j % 2], 1.0f);
        }
    }""", ", int n")
    assert len(_trace(k).ops) < 100
    monkeypatch.setattr(bounded, "MAX_TRACE_ITEMS", 20)
    with pytest.raises(PtoError) as err:
        _trace(k)
    d = err.value.diagnostics[0]
    assert d.message.startswith("the sync analysis would follow more than 20 instruction and iteration instances")
    assert "2 loops nest here" in d.message and d.loc.line == 8


def test_a_join_keeps_an_op_known_that_the_path_which_does_not_know_it_never_issued():
    """MTE2 loads x (10) before a branch and b (30) in it; the branch waits on V's prime and sets
    the flag again after its add. Past the join a wait on that flag knows b's load complete (the
    branch's signal says so; the path that skipped the branch never issued it) but not x's (the
    prime, pending on that path, says nothing about it): a hole, not a prefix."""
    from ptorewrite.analysis.hb import ALT, FORK, JOIN, SET, WAIT, order_events
    from ptorewrite.arch import PIPES

    v, mte2 = PIPES.index("V"), PIPES.index("MTE2")
    ops = [[] for _ in PIPES]
    ops[mte2], ops[v] = [10, 30, 70], [40]
    events = [
        (5, SET, v, mte2, 0, "prime"),
        (20, FORK, 0, None, None, None),
        (25, WAIT, v, mte2, 0, "w"),
        (31, SET, mte2, v, 1, "s"),
        (35, WAIT, mte2, v, 1, "w"),
        (41, SET, v, mte2, 0, "s"),
        (45, ALT, 0, None, None, None),
        (50, JOIN, 0, None, None, None),
        (60, WAIT, v, mte2, 0, "w"),
    ]
    order = order_events(events, op_positions=ops)
    assert order.ordered(mte2, 30, mte2, 70)
    assert not order.ordered(mte2, 10, mte2, 70)
    # Without the paths' ops the join can only keep what both rows say: neither load.
    blind = order_events(events, op_positions=None)
    assert not blind.ordered(mte2, 30, mte2, 70) and not blind.ordered(mte2, 10, mte2, 70)
