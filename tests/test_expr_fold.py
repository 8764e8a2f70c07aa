"""Folding in the symbolic expressions (analysis/expr.py): `x && false` and `x || true` are
constants whatever x is, and what x's source does (a call that issues work) still runs."""

from __future__ import annotations

import pytest

from ptorewrite.analysis.expr import BinOp, Const, UnboundValue, Var, binop, select
from ptorewrite.cli import main as cli_main

X = binop("<", Var("i"), Var("n"))


@pytest.mark.parametrize("op, lhs, rhs, folded", [
    ("&&", X, Const(False), Const(False)),
    ("&&", Const(False), X, Const(False)),
    ("&&", Var("n"), Const(0), Const(False)),  # an integer zero is false too
    ("||", X, Const(True), Const(True)),
    ("||", Const(True), X, Const(True)),
    ("||", Const(3), Var("n"), Const(True)),
])
def test_an_absorbing_constant_folds_the_whole_operation(op, lhs, rhs, folded):
    e = binop(op, lhs, rhs)
    assert e == folded and isinstance(e.value, bool)
    # No value of the variables is needed any more (unbound ones would raise).
    assert e.eval({}) is folded.value


@pytest.mark.parametrize("op, lhs, rhs", [
    ("&&", X, Const(True)),
    ("&&", Const(True), X),
    ("||", X, Const(False)),
    ("||", Const(False), X),
])
def test_a_neutral_constant_leaves_a_truth_value_alone(op, lhs, rhs):
    assert binop(op, lhs, rhs) == X


@pytest.mark.parametrize("op, lhs, rhs", [
    ("&&", Var("n"), Const(True)),  # an integer operand: `n && true` is a bool, n is not
    ("||", Const(False), Var("n")),
    ("&&", X, Var("b")),
    ("&", X, Const(0)),  # bitwise: not folded here (the `*` rule covers integer zero only for `*`)
])
def test_other_operands_are_kept(op, lhs, rhs):
    e = binop(op, lhs, rhs)
    assert isinstance(e, BinOp)
    with pytest.raises(UnboundValue):
        e.eval({})


def test_a_folded_condition_selects_its_branch():
    assert select(binop("&&", X, Const(False)), Const(1), Const(2)) == Const(2)
    assert select(binop("||", Const(True), X), Const(1), Const(2)) == Const(1)


KERNEL = r"""
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 16, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

// Returns a value and issues work: a barrier on the vector pipe.
AICORE inline bool settle(int n)
{
    pipe_barrier(PIPE_V);
    return n > 2;
}

extern "C" __global__ AICORE void fold_kernel(__gm__ float *out, __gm__ float *in, int n)
{
    TileT x;
    TASSIGN(x, 0x0);
    GmT src(in);
    GmT dst(out);
    TLOAD(x, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    if (CONDITION) {
        TADDS(x, x, 1.0f);
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}
"""


@pytest.mark.parametrize("condition, barrier_runs", [
    ("settle(n) && false", True),  # the call runs, the condition is false
    ("false && settle(n)", False),  # the call is never made
    ("!(settle(n) || true)", True),
])
def test_a_folded_condition_keeps_the_work_of_its_operands(capsys, tmp_path, condition, barrier_runs):
    path = tmp_path / "fold.cpp"
    path.write_text(KERNEL.replace("CONDITION", condition))
    assert cli_main(["ir", str(path)]) == 0
    body = capsys.readouterr().out.split("body:")[1]
    # The branch is gone: the condition is a constant false.
    assert "TADDS" not in body and "if (n" not in body
    assert "pipe_barrier(V)" in body
    # Under `false && ...` the call sits in a branch that never runs.
    assert ("if false:" not in body) is barrier_runs, body


def test_affine_normal_spells_one_value_alike_however_it_was_shifted():
    from ptorewrite.analysis.expr import affine_normal, cpp_text

    t = Var("t")
    shifted = binop("+", binop("-", binop("+", binop("-", t, Const(6)), Const(8)), Const(2)), Const(1))
    plain = binop("+", t, Const(1))
    guard = lambda e: binop("==", binop("%", e, Const(4)), Const(0))
    assert cpp_text(guard(shifted)) != cpp_text(guard(plain))
    assert cpp_text(affine_normal(guard(shifted))) == cpp_text(affine_normal(guard(plain))) == "(((t + 1) % 4) == 0)"
    # Terms in name order, coefficients kept, a value that cancels to a constant is that constant.
    assert cpp_text(affine_normal(binop("-", binop("+", Var("b"), binop("*", Const(2), Var("a"))), Const(3)))) \
        == "(((2 * a) + b) - 3)"
    assert affine_normal(binop("-", binop("+", t, Const(5)), t)) == Const(5)
    # What is not affine is kept, its affine operands folded.
    assert cpp_text(affine_normal(binop("/", binop("+", binop("-", t, Const(2)), Const(2)), Const(4)))) == "(t / 4)"
