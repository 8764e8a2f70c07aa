"""Hypothesis strategies for random valid AUTO kernels, written as C++ text.

Two families:
- vector kernels (`vector_kernels`): fp32 8 x 64 tiles, single and in rings of two and three
  (`r2[i % 2]`, `r3[(i + 1) % 3]`, `r2[ping]` with a ping-pong variable), a row tile and a scratch
  tile for row reductions, TRESHAPE / TSUBVIEW aliases bound at the top and inside loop bodies,
  elementwise / unary / tile-scalar ops, loads from two inputs and from the output (GM round
  trips), stores; loops with constant, runtime and zero-trip bounds, nested; `if` / `else` on the
  runtime `mode` and on the loop variables; bodies braced, unbraced on the next line, on the
  header's line with and without braces; several declarators per declaration.
- cube kernels (`cube_kernels`): half 16 x 32 / 32 x 16 L1 tiles split along k by TEXTRACT into
  L0A / L0B (or only the first 16 x 16 step), TMATMUL then TMATMUL_ACC into an accumulator, stores of
  the result from L0C; tiles single, in rings indexed by a loop variable, or by a ping-pong
  variable; an outer loop with a constant, runtime or zero-trip bound; the same body forms.

Every tile is written before it is read (vector kernels fill each tile first), so the AUTO kernel
computes a defined result the emulator can compare the rewrite with. Each kernel comes with the
runtime values (`n`, `mode`) to verify it at: a zero and a one trip count among them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st


@dataclass(frozen=True)
class FuzzKernel:
    text: str
    family: str  # "vector" or "cube"
    values: tuple[tuple[tuple[str, int], ...], ...]  # runtime values to verify at, one set each

    def value_sets(self) -> list[dict[str, int]]:
        return [dict(v) for v in self.values]


VECTOR_HEAD = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using FlatT = Tile<TileType::Vec, float, 1, 512, BLayout::RowMajor, 1, 512>;
using ColHalfT = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 8, 32>;
using RowHalfT = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 4, 64>;
using RowT = Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor, 8, 1>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
using GmRow = GlobalTensor<float, Shape<1, 1, 1, 8, 1>, Stride<1, 1, 1, 1, 1>>;
constexpr int E = 512;
extern "C" __global__ AICORE void fuzzed(__gm__ float *out, __gm__ float *in0, __gm__ float *in1, int n, int mode)
{
"""

CUBE_HEAD = """\
#include <pto/pto-inst.hpp>
using namespace pto;
using MatA = Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, half, 32, 16, BLayout::RowMajor, 32, 16, SLayout::ColMajor>;
using LeftT = TileLeft<half, 16, 16, 16, 16>;
using RightT = TileRight<half, 16, 16, 16, 16>;
using AccT = TileAcc<float, 16, 16, 16, 16>;
using GmA = GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
using GmB = GlobalTensor<half, Shape<1, 1, 1, 32, 16>, Stride<1, 1, 1, 1, 32>, Layout::DN>;
using GmC = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
extern "C" __global__ AICORE void fuzzed(__gm__ float *c, __gm__ half *a, __gm__ half *b, int n, int mode)
{
"""

# How a loop or branch body is written.
BLOCK = "block"  # { on the header's line, statements on their own lines, } alone
NEXT_LINE = "next-line"  # no braces, the one statement on the next line
SAME_LINE = "same-line"  # no braces, the one statement on the header's line
SAME_LINE_BRACED = "same-line-braced"  # { stmt; stmt; } on the header's line
FORMS = (BLOCK, BLOCK, BLOCK, NEXT_LINE, SAME_LINE, SAME_LINE_BRACED)

BINARY = ("TADD", "TSUB", "TMAX", "TMIN", "TMUL")
UNARY = ("TABS", "TRELU", "TMOV", "TNEG")
SCALAR = ("TMULS", "TADDS", "TMAXS", "TMINS")
REDUCE = ("TROWSUM", "TROWMAX", "TROWMIN")
LITERALS = ("0.5f", "-0.25f", "1.0f", "-1.5f")


@dataclass
class _Writer:
    lines: list[str] = field(default_factory=list)
    names: int = 0  # counter for fresh local names

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def fresh(self, stem: str) -> str:
        self.names += 1
        return f"{stem}{self.names}"


@dataclass(frozen=True)
class _Scope:
    loops: tuple[tuple[str, str, str], ...] = ()  # (variable, bound, step) of each enclosing loop
    budget: int = 2  # how many more levels of loops / branches may open
    # What enclosing conditions test ("mode", "n", a loop variable): a second test of the same
    # thing could be decided by the first, leaving a branch that never runs.
    tested: frozenset[str] = frozenset()

    def deeper(self, tested: str | None = None) -> _Scope:
        return _Scope(self.loops, self.budget - 1, self.tested | ({tested} if tested else set()))


def _lay_out(w: _Writer, depth: int, header: str, form: str, body: list[str] | None, block) -> None:
    """A loop or branch header with its body in `form`: `body` is one or two simple statements
    for the one-line forms, `block(depth)` writes the statements of a BLOCK body."""
    if form == BLOCK:
        w.emit(depth, header + " {")
        block(depth + 1)
        w.emit(depth, "}")
    elif form == NEXT_LINE:
        w.emit(depth, header)
        w.emit(depth + 1, body[0])
    elif form == SAME_LINE:
        w.emit(depth, f"{header} {body[0]}")
    else:
        w.emit(depth, f"{header} {{ {' '.join(body)} }}")


# ----------------------------------------------------------------------------------------------
# Vector kernels

# Declared tiles: (type, declarator, the tiles it names).
_VECTOR_TILES = (
    ("TileT", "t0", ["t0"]), ("TileT", "t1", ["t1"]), ("TileT", "t2", ["t2"]), ("TileT", "t3", ["t3"]),
    ("TileT", "tmp", ["tmp"]), ("TileT", "r2[2]", ["r2[0]", "r2[1]"]),
    ("TileT", "r3[3]", ["r3[0]", "r3[1]", "r3[2]"]), ("RowT", "rw", ["rw"]),
)


def _full_tiles(scope: _Scope) -> list[str]:
    out = ["t0", "t1", "t2", "t3", "r2[1]", "r3[0]"]
    for v, _, _ in scope.loops:
        out += [f"r2[{v} % 2]", f"r3[{v} % 3]", f"r3[({v} + 1) % 3]"]
    if scope.loops:
        out.append("r2[ping]")
    return out


def _gm_index(draw, scope: _Scope) -> str:
    terms = []
    for k, (v, _, _) in enumerate(scope.loops):
        terms.append(v if k == len(scope.loops) - 1 else f"{v} * 4")
    terms.append(str(draw(st.integers(0, 3))))
    return " + ".join(terms)


@st.composite
def _vector_simple(draw, scope: _Scope) -> str:
    """One statement that needs no declaration: it fits an unbraced body."""
    tiles = _full_tiles(scope)
    kind = draw(st.sampled_from(("binary", "binary", "unary", "scalar", "load", "store", "alias", "reduce")))
    pick = st.sampled_from(tiles)
    if kind == "binary":
        return f"{draw(st.sampled_from(BINARY))}({draw(pick)}, {draw(pick)}, {draw(pick)});"
    if kind == "unary":
        return f"{draw(st.sampled_from(UNARY))}({draw(pick)}, {draw(pick)});"
    if kind == "scalar":
        return f"{draw(st.sampled_from(SCALAR))}({draw(pick)}, {draw(pick)}, {draw(st.sampled_from(LITERALS))});"
    if kind == "load":  # views declared once at the top; gOut reads back what was stored there
        return f"TLOAD({draw(pick)}, {draw(st.sampled_from(('gIn0', 'gIn1', 'gOut')))});"
    if kind == "store":
        return f"TSTORE({draw(st.sampled_from(('gOut', 'gOut2')))}, {draw(pick)});"
    if kind == "reduce":
        return f"{draw(st.sampled_from(REDUCE))}(rw, {draw(pick)}, tmp);"
    return draw(st.sampled_from((
        f"TMULS(flat, flat, {draw(st.sampled_from(LITERALS))});",
        "TADD(left, left, right);", "TSUB(right, left, right);",
        "TMAX(top, top, bottom);", "TABS(bottom, top);")))


@st.composite
def _vector_compound(draw, w: _Writer, depth: int, scope: _Scope) -> None:
    """A statement group that needs its own lines: a GM view declared next to its use, or
    aliases of a tile declared in the body."""
    tiles = _full_tiles(scope)
    kind = draw(st.sampled_from(("load", "store", "store-row", "alias")))
    index = _gm_index(draw, scope)
    if kind == "load":
        g = w.fresh("g")
        w.emit(depth, f"GmT {g}({draw(st.sampled_from(('in0', 'in1', 'out')))} + ({index}) * E);")
        w.emit(depth, f"TLOAD({draw(st.sampled_from(tiles))}, {g});")
    elif kind == "store":
        g = w.fresh("g")
        w.emit(depth, f"GmT {g}(out + ({index}) * E);")
        w.emit(depth, f"TSTORE({g}, {draw(st.sampled_from(tiles))});")
    elif kind == "store-row":
        g = w.fresh("g")
        w.emit(depth, f"GmRow {g}(out + ({index}) * E + 8);")
        w.emit(depth, f"TSTORE({g}, rw);")
    else:
        base = draw(st.sampled_from(tiles))
        shape = draw(st.sampled_from(("cols", "rows", "flat")))
        if shape == "flat":
            v = w.fresh("f")
            w.emit(depth, f"FlatT {v};")
            w.emit(depth, f"TRESHAPE({v}, {base});")
            w.emit(depth, f"TADDS({v}, {v}, {draw(st.sampled_from(LITERALS))});")
        else:
            a, b = w.fresh("v"), w.fresh("v")
            typ, off = ("ColHalfT", "0, 32") if shape == "cols" else ("RowHalfT", "4, 0")
            w.emit(depth, f"{typ} {a}, {b};")
            w.emit(depth, f"TSUBVIEW({a}, {base}, 0, 0);")
            w.emit(depth, f"TSUBVIEW({b}, {base}, {off});")
            w.emit(depth, f"{draw(st.sampled_from(BINARY))}({a}, {a}, {b});")


def _conditions(scope: _Scope) -> list[tuple[str, str]]:
    """(condition, what it tests): each can go either way at some runtime value."""
    conds = [("mode == 0", "mode"), ("mode != 1", "mode"), ("n > 2", "n")]
    if scope.loops:
        v, bound, step = scope.loops[-1]
        conds += [(f"{v} == 0", v), (f"{v} < 2", v)]
        if "+=" not in step:  # a loop by twos: the variable is always even
            conds += [(f"{v} % 2 == 1", v), (f"({v} + mode) % 2 == 0", v)]
        if not bound.isdigit():
            conds.append((f"{v} == {bound} - 1", v))
    return [c for c in conds if c[1] not in scope.tested]


LOOP_HEADS = (  # bound, step; "n" is the runtime trip count, "0" a loop that never runs
    ("n", "++{v}"), ("n", "++{v}"), ("3", "++{v}"), ("2", "{v}++"), ("0", "++{v}"), ("n - 1", "++{v}"),
    ("5", "{v} += 2"),
)


@st.composite
def _vector_control(draw, w: _Writer, depth: int, scope: _Scope, simple_only: bool = False) -> None:
    """A loop or an if / else, in a drawn layout."""
    form = draw(st.sampled_from(FORMS))
    if simple_only and form == BLOCK:
        form = NEXT_LINE
    conds = _conditions(scope)
    if (draw(st.booleans()) or not conds) and len(scope.loops) < 3:
        v = "ijk"[len(scope.loops)]
        bound, step = draw(st.sampled_from(LOOP_HEADS))
        inner = _Scope(scope.loops + ((v, bound, step),), scope.budget - 1, scope.tested)
        header = f"for (int {v} = 0; {v} < {bound}; {step.format(v=v)})"

        def block(d: int) -> None:
            draw(_vector_block(w, d, inner))
            if draw(st.booleans()):
                w.emit(d, "ping = 1 - ping;")

        body = [draw(_vector_simple(inner)) for _ in range(draw(st.integers(1, 2)))]
        _lay_out(w, depth, header, form, body, block)
        return
    if not conds:
        w.emit(depth, draw(_vector_simple(scope)))
        return
    cond, tested = draw(st.sampled_from(conds))
    header = f"if ({cond})"
    inner = scope.deeper(tested)
    with_else = draw(st.booleans())
    if form == BLOCK:
        w.emit(depth, header + " {")
        draw(_vector_block(w, depth + 1, inner))
        if with_else:
            w.emit(depth, "} else {")
            draw(_vector_block(w, depth + 1, inner))
        w.emit(depth, "}")
    elif form == NEXT_LINE:
        w.emit(depth, header)
        w.emit(depth + 1, draw(_vector_simple(inner)))
        if with_else:
            w.emit(depth, "else")
            w.emit(depth + 1, draw(_vector_simple(inner)))
    elif form == SAME_LINE:
        tail = f" else {draw(_vector_simple(inner))}" if with_else else ""
        w.emit(depth, f"{header} {draw(_vector_simple(inner))}{tail}")
    else:
        tail = f" else {{ {draw(_vector_simple(inner))} }}" if with_else else ""
        w.emit(depth, f"{header} {{ {draw(_vector_simple(inner))} }}{tail}")


@st.composite
def _vector_block(draw, w: _Writer, depth: int, scope: _Scope) -> None:
    for _ in range(draw(st.integers(1, 4))):
        choice = draw(st.sampled_from(("simple", "simple", "compound", "control")))
        if choice == "control" and scope.budget > 0:
            draw(_vector_control(w, depth, scope))
        elif choice == "compound":
            draw(_vector_compound(w, depth, scope))
        else:
            w.emit(depth, draw(_vector_simple(scope)))


@st.composite
def _declarations(draw, w: _Writer, items, depth: int = 1) -> None:
    """Declare `items` ((type, declarator, ...)) in drawn groups: `TileT a, b[2];`."""
    order = draw(st.permutations(list(items)))
    k = 0
    while k < len(order):
        typ = order[k][0]
        group = [order[k]]
        k += 1
        while k < len(order) and order[k][0] == typ and len(group) < 3 and draw(st.booleans()):
            group.append(order[k])
            k += 1
        w.emit(depth, f"{typ} {', '.join(g[1] for g in group)};")


@st.composite
def vector_source(draw) -> str:
    w = _Writer()
    draw(_declarations(w, _VECTOR_TILES))
    w.emit(1, "FlatT flat;")
    w.emit(1, "ColHalfT left, right;")
    w.emit(1, "RowHalfT top, bottom;")
    base = draw(st.sampled_from(("t1", "t2", "t3")))
    w.emit(1, f"TRESHAPE(flat, {base});")
    w.emit(1, f"TSUBVIEW(left, {base}, 0, 0);")
    w.emit(1, f"TSUBVIEW(right, {base}, 0, 32);")
    other = draw(st.sampled_from(("t1", "t2", "t3", "r3[2]")))
    w.emit(1, f"TSUBVIEW(top, {other}, 0, 0);")
    w.emit(1, f"TSUBVIEW(bottom, {other}, 4, 0);")
    w.emit(1, "GmT gIn0(in0 + 6 * E), gIn1(in1 + 7 * E);")
    w.emit(1, "GmT gOut(out + 20 * E), gOut2(out + 21 * E);")
    w.emit(1, "int ping = 0;")
    for _typ, _decl, names in _VECTOR_TILES:
        for t in names:
            w.emit(1, f"TEXPANDS({t}, {draw(st.sampled_from(LITERALS))});")
    for _ in range(draw(st.integers(1, 3))):
        draw(_vector_control(w, 1, _Scope(budget=2)))
        if draw(st.booleans()):
            draw(_vector_block(w, 1, _Scope(budget=0)))
    w.emit(1, "GmT gLast(out);")
    w.emit(1, f"TSTORE(gLast, {draw(st.sampled_from(('t0', 't1', 'r2[0]', 'r3[1]')))});")
    return VECTOR_HEAD + "\n".join(w.lines) + "\n}\n"


# ----------------------------------------------------------------------------------------------
# Cube kernels


def _slot(kind: str, var: str, size: int) -> tuple[str, str]:
    """(declarator suffix, index) of a tile held singly, in a ring indexed by `var`, or by the
    ping-pong variable."""
    if kind == "single":
        return "", ""
    if kind == "ring":
        return f"[{size}]", f"[{var} % {size}]"
    return "[2]", "[pp]"


@st.composite
def cube_source(draw) -> str:
    w = _Writer()
    outer_bound, _ = draw(st.sampled_from(LOOP_HEADS[:6]))
    ksteps = draw(st.sampled_from((1, 2, 2)))  # 1: one 16 x 16 step (the first half of k)
    slot_kinds = st.sampled_from(("single", "ring", "ping"))
    mat_kind, l0_kind, acc_kind = draw(slot_kinds), draw(slot_kinds), draw(slot_kinds)
    mat_decl, mat_ix = _slot(mat_kind, "t", 2)
    l0_decl, l0_ix = _slot(l0_kind, "k", 2)
    acc_decl, acc_ix = _slot(acc_kind, "t", 2)
    if ksteps == 1 or l0_kind == "ping":  # the ping-pong variable toggles per outer iteration
        l0_decl, l0_ix = _slot(l0_kind, "t", 2)
    items = [("MatA", f"aMat{mat_decl}"), ("MatB", f"bMat{mat_decl}"), ("LeftT", f"aL{l0_decl}"),
             ("RightT", f"bR{l0_decl}"), ("AccT", f"acc{acc_decl}")]
    draw(_declarations(w, items))
    w.emit(1, "int pp = 0;")
    store_inside = draw(st.booleans()) or acc_kind != "single"
    w.emit(1, f"for (int t = 0; t < {outer_bound}; ++t) {{")
    w.emit(2, "GmA gA(a + t * 512);")
    w.emit(2, "GmB gB(b + t * 512);")
    w.emit(2, f"TLOAD(aMat{mat_ix}, gA);")
    w.emit(2, f"TLOAD(bMat{mat_ix}, gB);")
    acc = f"acc{acc_ix}"
    if ksteps == 1:
        w.emit(2, f"TEXTRACT(aL{l0_ix}, aMat{mat_ix}, 0, 0);")
        w.emit(2, f"TEXTRACT(bR{l0_ix}, bMat{mat_ix}, 0, 0);")
        w.emit(2, f"TMATMUL({acc}, aL{l0_ix}, bR{l0_ix});")
    else:
        step_a = f"TEXTRACT(aL{l0_ix}, aMat{mat_ix}, 0, k * 16);"
        step_b = f"TEXTRACT(bR{l0_ix}, bMat{mat_ix}, k * 16, 0);"
        first = f"TMATMUL({acc}, aL{l0_ix}, bR{l0_ix});"
        rest = f"TMATMUL_ACC({acc}, {acc}, aL{l0_ix}, bR{l0_ix});"
        form = draw(st.sampled_from((BLOCK, NEXT_LINE, SAME_LINE, SAME_LINE_BRACED)))
        w.emit(2, "for (int k = 0; k < 2; ++k) {")
        w.emit(3, step_a)
        w.emit(3, step_b)
        if form == BLOCK:
            w.emit(3, "if (k == 0) {")
            w.emit(4, first)
            w.emit(3, "} else {")
            w.emit(4, rest)
            w.emit(3, "}")
        elif form == NEXT_LINE:
            w.emit(3, "if (k == 0)")
            w.emit(4, first)
            w.emit(3, "else")
            w.emit(4, rest)
        elif form == SAME_LINE:
            w.emit(3, f"if (k == 0) {first} else {rest}")
        else:
            w.emit(3, f"if (k == 0) {{ {first} }} else {{ {rest} }}")
        w.emit(2, "}")
    if store_inside:
        cond = draw(st.sampled_from(("", "", "mode == 0", "t % 2 == 0", f"t == {outer_bound} - 1"
                                     if not outer_bound.isdigit() else "t == 0")))
        w.emit(2, "GmC gC(c + t * 256);")
        if cond:
            w.emit(2, f"if ({cond}) TSTORE(gC, {acc});")
        else:
            w.emit(2, f"TSTORE(gC, {acc});")
    if "pp" in (mat_ix + l0_ix + acc_ix):
        w.emit(2, "pp = 1 - pp;")
    w.emit(1, "}")
    if not store_inside:
        # The last product, stored after the loop only when the loop ran.
        w.emit(1, f"if ({outer_bound} > 0) {{")
        w.emit(2, "GmC gC(c + 64 * 256);")
        w.emit(2, f"TSTORE(gC, {acc});")
        w.emit(1, "}")
    return CUBE_HEAD + "\n".join(w.lines) + "\n}\n"


# ----------------------------------------------------------------------------------------------

VALUE_SETS = st.tuples(st.sampled_from((0, 1)), st.sampled_from((2, 3, 4, 5)),
                       st.sampled_from((0, 1, 2)), st.sampled_from((0, 1, 2)))


def _values(drawn: tuple[int, int, int, int]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Three (n, mode) sets: a zero or one trip count, a longer one (four or more wraps a ring of
    three), and the other small one."""
    small, big, m1, m2 = drawn
    sets = [(small, m1), (big, m2), (1 - small, (m1 + 1) % 3)]
    return tuple((("n", n), ("mode", m)) for n, m in sets)


@st.composite
def vector_kernels(draw) -> FuzzKernel:
    return FuzzKernel(draw(vector_source()), "vector", _values(draw(VALUE_SETS)))


@st.composite
def cube_kernels(draw) -> FuzzKernel:
    return FuzzKernel(draw(cube_source()), "cube", _values(draw(VALUE_SETS)))


def kernels() -> st.SearchStrategy[FuzzKernel]:
    """Vector kernels mostly, cube kernels one time in four."""
    return st.one_of(vector_kernels(), vector_kernels(), vector_kernels(), cube_kernels())
