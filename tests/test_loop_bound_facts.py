"""What a loop's bound says about a runtime value: the tests inside it the bound decides, in the
bounded trace and in the GM dependence test, and the source it refuses to read that way."""

from __future__ import annotations

from math import inf
from pathlib import Path

import pytest

from ptorewrite.analysis import bound_facts, ir
from ptorewrite.analysis.gm_pairs import classify
from ptorewrite.arch import profile
from ptorewrite.diagnostics import Reporter
from ptorewrite.emulator.verify import verify
from ptorewrite.fuzz.run import probe_syncs
from ptorewrite.parse.frontend import FrontendOptions, load_kernel
from ptorewrite.transform.rewrite import rewrite

A2A3 = profile("a2a3")
KERNELS = Path(__file__).resolve().parent / "kernels" / "sync"

HEADER = """#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
"""


def rewritten(name: str, tmp_path: Path):
    auto = load_kernel(KERNELS / name)
    reporter = Reporter()
    text = rewrite(auto, A2A3, reporter).text
    out = tmp_path / name
    out.write_bytes(text)
    return auto, load_kernel(out, FrontendOptions(auto_mode=False)), text.decode(), reporter


def assert_verified(auto, manual, values: dict) -> None:
    v = verify(auto, manual, A2A3, values, seed=5)
    assert v.equivalent, (values, [str(m) for m in v.mismatches[:2]])
    assert v.check.clean, (values, [d.format() for d in v.check.diagnostics()[:2]])


def test_a_test_the_loop_bound_implies_takes_one_branch(tmp_path):
    """`if (n > 2)` inside `for (int i = 0; i < n - 1; ++i)`: only the first block can take the
    else branch, so its store of the spill block needs no barrier against an earlier one, and the
    column store of block i (block 20 only when n >= 22) none against the spill (n == 2)."""
    auto, manual, text, reporter = rewritten("loop_bound_implies_test.cpp", tmp_path)
    assert not reporter.warnings
    assert text.count("set_flag(") == 6 and text.count("wait_flag(") == 6
    assert text.count("pipe_barrier(") == 2
    assert "WAW gSpill" not in text and "WAW gCol" not in text
    assert "pipe_barrier(PIPE_MTE3);  // WAW gSum: TSTORE -> TSTORE on PIPE_MTE3" in text
    for n in (0, 1, 2, 3, 7, 22, 23):
        assert_verified(auto, manual, {"n": n})
    count, unnoticed = probe_syncs(auto, A2A3, tmp_path)
    assert count == 6 and unnoticed == []


def test_an_unsigned_loop_bound_decides_nothing(tmp_path):
    """The same kernel with `unsigned n` and `unsigned i`: `n - 1` wraps at n == 0, where the loop
    runs on with `n > 2` false, so both stores keep their barriers."""
    auto, manual, text, reporter = rewritten("unsigned_loop_bound.cpp", tmp_path)
    assert not reporter.warnings
    assert text.count("set_flag(") == 6 and text.count("pipe_barrier(") == 4
    assert "pipe_barrier(PIPE_MTE3);  // WAW gSpill: TSTORE -> TSTORE on PIPE_MTE3" in text
    assert "pipe_barrier(PIPE_MTE3);  // WAW gCol: TSTORE -> TSTORE on PIPE_MTE3" in text
    for n in (1, 2, 3, 7, 22):
        assert_verified(auto, manual, {"n": n})


def _kernel(tmp_path: Path, params: str, body: str) -> ir.Kernel:
    path = tmp_path / "k.cpp"
    path.write_text(HEADER + f'extern "C" __global__ AICORE void k(__gm__ float *out, {params})\n{{\n'
                    "    TileT t;\n    TEXPANDS(t, 1.0f);\n" + body + "}\n")
    return load_kernel(path)


def _first(kernel: ir.Kernel, kind):
    return next(s for s in ir.walk(kernel.body) if isinstance(s, kind))


@pytest.mark.parametrize("header, bound", [
    ("for (int i = 0; i < n - 1; ++i)", ("n", 1, -1, "<")),
    ("for (int i = 0; i <= 2 * n; i += 2)", ("n", 2, 0, "<=")),
    ("for (long i = 8; i > 3 - n; --i)", ("n", -1, 3, ">")),
    ("for (int i = 0; i < (n - 1); ++i)", ("n", 1, -1, "<")),
    ("for (unsigned i = 0; i < n - 1; ++i)", None),  # wraps at n == 0
    ("for (int i = 0; i < n - 1u; ++i)", None),  # an unsigned literal makes the comparison unsigned
    ("for (int i = 0; i < m - 1; ++i)", None),  # m is unsigned
    ("for (int i = 0; i < LAST; ++i)", None),  # a macro: the text is not the expression
    ("for (int i = 0; i != n; ++i)", None),
    ("for (int i = 0; i < n * n; ++i)", None),  # not linear
])
def test_loop_bounds_are_read_only_from_plain_signed_source(tmp_path, header, bound):
    k = _kernel(tmp_path, "int n, unsigned m",
                f"#define LAST (n - 1)\n    {header} {{\n        GmT g(out + i * 512);\n        TSTORE(g, t);\n    }}\n")
    got = bound_facts.loop_bound(k, _first(k, ir.For), bound_facts.signed_params(k))
    assert (None if got is None else (got.name, got.coef, got.const, got.op)) == bound


@pytest.mark.parametrize("cond, test", [
    ("n > 2", ("n", 1, -2, ">")),
    ("(2 * n) <= 7", ("n", 2, -7, "<=")),
    ("3 - n == 1", ("n", -1, 2, "==")),
    ("n > 2u", None),
    ("m > 2", None),
    ("n > LIMIT", None),
    ("n > 2 && n < 9", None),
    ("n % 2 == 0", None),
])
def test_conditions_are_read_only_from_plain_signed_source(tmp_path, cond, test):
    k = _kernel(tmp_path, "int n, unsigned m, int p",
                f"#define LIMIT 2\n    GmT g(out);\n    if ({cond}) {{\n        TSTORE(g, t);\n    }}\n")
    got = bound_facts.condition_test(k, _first(k, ir.If), bound_facts.signed_params(k))
    assert got == test


def test_what_an_iteration_and_a_branch_say_about_the_value():
    lt = bound_facts.LoopBound("n", 1, -1, "<")  # i < n - 1
    assert bound_facts.narrow({}, lt, 0) == {"n": (2, inf)}
    assert bound_facts.narrow({}, lt, 3) == {"n": (5, inf)}
    down = bound_facts.LoopBound("n", -2, 9, ">=")  # i >= 9 - 2 n
    assert bound_facts.narrow({}, down, 3) == {"n": (3, inf)}
    neg = bound_facts.LoopBound("n", -1, 10, "<")  # i < 10 - n
    assert bound_facts.narrow({}, neg, 4) == {"n": (-inf, 5)}
    gt2 = ("n", 1, -2, ">")  # n - 2 > 0
    assert bound_facts.restrict({}, gt2, True) == {"n": (3, inf)}
    assert bound_facts.restrict({"n": (2, inf)}, gt2, False) == {"n": (2, 2)}
    assert bound_facts.restrict({}, ("n", 2, -8, "=="), True) == {"n": (4, 4)}
    assert bound_facts.restrict({}, ("n", 2, -7, "=="), True) == {}  # never true: nothing learnt


@pytest.mark.parametrize("known, test, value", [
    ({"n": (3, inf)}, ("n", 1, -2, ">"), True),
    ({"n": (2, inf)}, ("n", 1, -2, ">"), None),
    ({"n": (-inf, 2)}, ("n", 1, -2, ">"), False),
    ({"n": (5, inf)}, ("n", -1, 3, "<"), True),  # 3 - n < 0
    ({"n": (5, inf)}, ("n", 1, -4, "=="), False),
    ({"n": (5, 5)}, ("n", 1, -5, "=="), True),
    ({"n": (2, inf)}, ("n", 2, -7, "!="), True),  # 2 n == 7 has no integer solution
    ({}, ("n", 1, -2, ">"), None),
])
def test_a_test_is_decided_only_when_every_value_agrees(known, test, value):
    assert bound_facts.decide(test, known) is value


def test_a_gm_pair_no_run_reaches_together_is_no_pair(tmp_path):
    """A store under `n <= 2` in a loop to n - 1 runs only at i == 0; a store of block i meets it
    at i == 20 only: not a dependence. With the test on `m` (unsigned) it stays one."""
    body = ("    GmT gSpill(out + 20 * 512);\n    for (int i = 0; i < n - 1; ++i) {{\n        if ({c}) {{\n            TSTORE(gSpill, t);\n"
            "        }}\n        GmT g(out + i * 512);\n        TSTORE(g, t);\n    }}\n")
    k = _kernel(tmp_path, "int n, unsigned m", body.format(c="n <= 2"))
    assert classify(k).may == {}
    k = _kernel(tmp_path, "int n, unsigned m", body.format(c="m <= 2"))
    assert classify(k).may != {}
