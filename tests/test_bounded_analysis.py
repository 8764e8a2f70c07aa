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


def _trace(k: ir.Kernel, extra=0):
    mem = plan_memory(k, A2A3, Reporter())
    return bounded_trace(k, A2A3, mem.address, extra)


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
