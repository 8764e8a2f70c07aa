"""Property test: random AUTO-mode vector kernels, parsed by the front end, planned under random UB limits.

Each generated kernel declares tiles (single tiles and 2-slot arrays) of a few shapes at the top,
in loop bodies and in if/else branches, and runs TLOAD/TEXP/TADD/TSTORE sequences over the tiles in
scope. Whatever the limit, the plan either satisfies every invariant (no overlap between
simultaneously live tiles, alignment, limit, equal-stride arrays, graph = liveness) and is
deterministic, or it is a located UB overflow error whose peak really exceeds the limit (or that
says no placement was found).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _memplan_invariants import addresses, check_plan
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptorewrite.arch import profile
from ptorewrite.diagnostics import PtoError, Reporter
from ptorewrite.parse.frontend import FrontendOptions, load_kernel
from ptorewrite.transform.memplan import plan_memory

SHAPES = [(8, 64), (16, 64), (16, 128), (32, 128)]  # fp32: 2, 4, 8, 16 KiB
A2A3 = profile("a2a3")


def header() -> str:
    out = ["#include <pto/pto-inst.hpp>", "using namespace pto;"]
    for r, c in SHAPES:
        out.append(f"using T{r}x{c} = Tile<TileType::Vec, float, {r}, {c}, BLayout::RowMajor, {r}, {c}>;")
        out.append(f"using G{r}x{c} = GlobalTensor<float, Shape<1, 1, 1, {r}, {c}>, Stride<1, 1, 1, {c}, 1>>;")
    return "\n".join(out) + "\n"


class _Gen:
    """Draws a kernel body statement by statement, tracking which tiles are in scope."""

    def __init__(self, draw):
        self.draw = draw
        self.n_tiles = 0
        self.lines: list[str] = []

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def declare(self, depth: int, scope: list, loop_var: str | None) -> None:
        shape = self.draw(st.sampled_from(SHAPES))
        array = self.draw(st.booleans())
        name = f"t{self.n_tiles}"
        self.n_tiles += 1
        r, c = shape
        self.emit(depth, f"T{r}x{c} {name}{'[2]' if array else ''};")
        scope.append((name, shape, array))

    def ref(self, tile, loop_var: str | None) -> str:
        name, _, array = tile
        if not array:
            return name
        idx = f"{loop_var} % 2" if loop_var and self.draw(st.booleans()) else str(self.draw(st.integers(0, 1)))
        return f"{name}[{idx}]"

    def instr(self, depth: int, scope: list, loop_var: str | None) -> None:
        if not scope:
            return
        dst = self.draw(st.sampled_from(scope))
        same = [t for t in scope if t[1] == dst[1]]
        r, c = dst[1]
        kind = self.draw(st.sampled_from(["load", "exp", "add", "store"]))
        if kind == "load":
            self.emit(depth, f"TLOAD({self.ref(dst, loop_var)}, gIn{r}x{c});")
        elif kind == "store":
            self.emit(depth, f"TSTORE(gOut{r}x{c}, {self.ref(dst, loop_var)});")
        elif kind == "exp":
            src = self.draw(st.sampled_from(same))
            self.emit(depth, f"TEXP({self.ref(dst, loop_var)}, {self.ref(src, loop_var)});")
        else:
            a, b = self.draw(st.sampled_from(same)), self.draw(st.sampled_from(same))
            self.emit(depth, f"TADD({self.ref(dst, loop_var)}, {self.ref(a, loop_var)}, {self.ref(b, loop_var)});")

    def block(self, depth: int, outer: list, loop_var: str | None, nesting: int) -> None:
        scope = list(outer)
        for _ in range(self.draw(st.integers(1, 5))):
            kind = self.draw(st.sampled_from(["decl", "instr", "instr", "loop", "if"]))
            if kind == "decl" and self.n_tiles < 10:
                self.declare(depth, scope, loop_var)
            elif kind == "loop" and nesting < 2:
                var = f"i{depth}"
                trips = self.draw(st.integers(1, 4))
                self.emit(depth, f"for (int {var} = 0; {var} < {trips}; ++{var}) {{")
                self.block(depth + 1, scope, var, nesting + 1)
                self.emit(depth, "}")
            elif kind == "if" and nesting < 2:
                cond = f"{loop_var} % 2 == 0" if loop_var else "n > 2"
                self.emit(depth, f"if ({cond}) {{")
                self.block(depth + 1, scope, loop_var, nesting + 1)
                if self.draw(st.booleans()):
                    self.emit(depth, "} else {")
                    self.block(depth + 1, scope, loop_var, nesting + 1)
                self.emit(depth, "}")
            else:
                self.instr(depth, scope, loop_var)


@st.composite
def kernels(draw) -> str:
    gen = _Gen(draw)
    top: list = []
    for _ in range(draw(st.integers(1, 4))):
        gen.declare(1, top, None)
    for _ in range(draw(st.integers(1, 4))):
        gen.instr(1, top, None)
    gen.block(1, top, None, 0)
    # Make sure the kernel has at least one instruction.
    gen.emit(1, f"TLOAD({gen.ref(top[0], None)}, gIn{top[0][1][0]}x{top[0][1][1]});")
    gms = [f"    G{r}x{c} gIn{r}x{c}(in);\n    G{r}x{c} gOut{r}x{c}(out);" for r, c in SHAPES]
    return (header() + 'extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in, int n)\n{\n'
            + "\n".join(gms) + "\n" + "\n".join(gen.lines) + "\n}\n")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=kernels(), limit_kib=st.sampled_from([None, 8, 16, 24, 32, 48, 64]))
def test_random_kernels_plan_soundly(source, limit_kib):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "k.cpp"
        path.write_text(source)
        kernel = load_kernel(path, FrontendOptions())
        prof = A2A3 if limit_kib is None else A2A3.with_capacity({"UB": limit_kib * 1024})
        try:
            plan = plan_memory(kernel, prof, Reporter())
        except PtoError as e:
            d0 = e.diagnostics[0]
            assert d0.message.startswith("UB overflow"), e.format()
            assert d0.loc is not None and d0.loc.file == str(path)
            if "no placement without overlaps" not in d0.message:
                need = int(d0.message.split("(")[1].split(" B)")[0])
                assert need > prof.buffers["UB"].alloc_limit
            return
        check_plan(plan)
        # Reuse only under pressure: if every tile fits side by side, none shares.
        use = plan.buffers.get("UB")
        total = sum(p.stride * (len(p.addresses) - 1) + p.nbytes for p in plan.placements)
        if use is not None and not use.reuse:
            assert not plan.reuses
        if total <= prof.buffers["UB"].alloc_limit:
            assert use is None or not use.reuse
        again = plan_memory(load_kernel(path, FrontendOptions()), prof, Reporter())
        assert addresses(again) == addresses(plan)
