"""Property: the rewrite of a random AUTO kernel with runtime trip counts and runtime conditions
is right at values the planner never sees.

Kernels are drawn as text: loops over a runtime `n` or a constant, nested loops, conditions on a
runtime `mode`, on the last iteration (`i == n - 1`), on the first and on odd iterations, rings
of tiles indexed by `i % 2` / `i % 3` and a ping-pong variable, loads, stores and results read
back from the output. Each is rewritten once (no runtime value is given to the planner) and then
verified by the emulator for several (n, mode) pairs, 0 and 1 included.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptorewrite.arch import profile
from ptorewrite.diagnostics import Reporter
from ptorewrite.emulator.verify import verify
from ptorewrite.parse.frontend import FrontendOptions, load_kernel
from ptorewrite.transform.rewrite import rewrite

A2A3 = profile("a2a3")

HEAD = """#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
constexpr int E = 512;
extern "C" __global__ AICORE void drawn(__gm__ float *out, __gm__ float *in0, __gm__ float *in1, int n, int mode)
{
    TileT t0;
    TileT t1;
    TileT t2;
    TileT r2[2];
    TileT r3[3];
    int ping = 0;
"""
INIT = ["t0", "t1", "t2", "r2[0]", "r2[1]", "r3[0]", "r3[1]", "r3[2]"]
BINARY = ("TADD", "TSUB", "TMAX", "TMIN")
UNARY = ("TABS", "TRELU", "TMOV")


class _Writer:
    def __init__(self):
        self.lines: list[str] = []
        self.gm = 0

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)


def _tiles(loop_vars: list[str]) -> list[str]:
    out = ["t0", "t1", "t2"]
    for v in loop_vars:
        out += [f"r2[{v} % 2]", f"r3[{v} % 3]", f"r3[({v} + 1) % 3]"]
    if loop_vars:
        out.append("r2[ping]")
    return out


@st.composite
def _op(draw, w: _Writer, depth: int, loop_vars: list[str]) -> None:
    tiles = _tiles(loop_vars)
    kind = draw(st.sampled_from(("load", "store", "binary", "unary", "scalar", "load", "binary")))
    index = " + ".join(loop_vars[-1:] + [str(draw(st.integers(0, 2)))])
    if kind == "load":
        w.gm += 1
        src = draw(st.sampled_from(("in0", "in1", "out")))
        w.emit(depth, f"GmT g{w.gm}({src} + ({index}) * E);")
        w.emit(depth, f"TLOAD({draw(st.sampled_from(tiles))}, g{w.gm});")
    elif kind == "store":
        w.gm += 1
        w.emit(depth, f"GmT g{w.gm}(out + ({index}) * E);")
        w.emit(depth, f"TSTORE(g{w.gm}, {draw(st.sampled_from(tiles))});")
    elif kind == "binary":
        a, b, c = (draw(st.sampled_from(tiles)) for _ in range(3))
        w.emit(depth, f"{draw(st.sampled_from(BINARY))}({a}, {b}, {c});")
    elif kind == "unary":
        a, b = (draw(st.sampled_from(tiles)) for _ in range(2))
        w.emit(depth, f"{draw(st.sampled_from(UNARY))}({a}, {b});")
    else:
        a, b = (draw(st.sampled_from(tiles)) for _ in range(2))
        w.emit(depth, f"TMULS({a}, {b}, 0.5f);")


@st.composite
def _block(draw, w: _Writer, depth: int, loop_vars: list[str], budget: int) -> None:
    for _ in range(draw(st.integers(1, 4))):
        choice = draw(st.sampled_from(("op", "op", "op", "if", "loop"))) if budget > 0 else "op"
        if choice == "op":
            draw(_op(w, depth, loop_vars))
        elif choice == "if":
            v = loop_vars[-1] if loop_vars else None
            conds = ["mode == 0", "mode > 1"] + ([f"{v} == n - 1", f"{v} == 0", f"{v} % 2 == 1", f"{v} < 2",
                                                  f"({v} + mode) % 2 == 0"] if v else [])
            w.emit(depth, f"if ({draw(st.sampled_from(conds))}) {{")
            draw(_block(w, depth + 1, loop_vars, budget - 1))
            if draw(st.booleans()):
                w.emit(depth, "} else {")
                draw(_block(w, depth + 1, loop_vars, budget - 1))
            w.emit(depth, "}")
        elif len(loop_vars) < 2:
            v = "ij"[len(loop_vars)]
            bound = draw(st.sampled_from(("n", "n", "3", "6")))
            w.emit(depth, f"for (int {v} = 0; {v} < {bound}; ++{v}) {{")
            draw(_block(w, depth + 1, loop_vars + [v], budget - 1))
            if draw(st.booleans()):
                w.emit(depth + 1, "ping = 1 - ping;")
            w.emit(depth, "}")
        else:
            draw(_op(w, depth, loop_vars))


@st.composite
def kernels(draw) -> str:
    w = _Writer()
    for t in INIT:
        w.emit(1, f"TEXPANDS({t}, {draw(st.sampled_from(('0.5f', '1.0f', '-0.25f')))});")
    w.emit(1, "for (int i = 0; i < n; ++i) {")
    draw(_block(w, 2, ["i"], 2))
    w.emit(1, "}")
    draw(_block(w, 1, [], 1))
    w.gm += 1
    w.emit(1, f"GmT g{w.gm}(out);")
    w.emit(1, f"TSTORE(g{w.gm}, t0);")
    return HEAD + "\n".join(w.lines) + "\n}\n"


VALUES = st.lists(st.tuples(st.sampled_from((0, 1, 2, 3, 5, 9)), st.sampled_from((0, 1, 2))),
                  min_size=3, max_size=3, unique=True)


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=kernels(), values=VALUES)
def test_rewrite_of_a_random_kernel_is_right_for_values_never_analysed(tmp_path_factory, text, values):
    tmp = tmp_path_factory.mktemp("drawn")
    src = Path(tmp) / "drawn.cpp"
    src.write_text(text)
    auto = load_kernel(src)
    reporter = Reporter()
    out = Path(tmp) / "drawn_manual.cpp"
    out.write_bytes(rewrite(auto, A2A3, reporter).text)
    manual = load_kernel(out, FrontendOptions(auto_mode=False))
    if "PIPE_ALL" in out.read_text():  # a last resort, never silent
        assert any("pipe_barrier(PIPE_ALL)" in d.message for d in reporter.warnings)
    for n, mode in values + [(1, 0), (0, 1)]:
        v = verify(auto, manual, A2A3, {"n": n, "mode": mode}, seed=n + 7 * mode)
        assert v.equivalent and v.check.clean, (text, n, mode, [str(m) for m in v.mismatches[:2]],
                                                [d.format() for d in v.check.diagnostics()[:2]])
