"""Whether a MultiBuffered body is lowered once per phase is read from clang's tree of the body:
comments, string literals, spacing and macros cannot change it (parse/phase_use.py).

Each case is the same kernel with one body: Range<5>, FirstK = 0, LastK = 2, so a body lowered
per phase gives two loops, [0, 3) as Phase::Main and [3, 5) as Phase::Epilogue, and one lowered
once gives one loop over [0, 5) with no phase.
"""

from __future__ import annotations

import pytest

ci = pytest.importorskip("clang.cindex")

from ptorewrite.analysis import ir
from ptorewrite.parse.arch_macros import parse_args
from ptorewrite.parse.frontend import FrontendOptions, load_kernel
from ptorewrite.parse.phase_use import needs_constant_phase

KERNEL = r"""
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

#define CURRENT_PHASE ctx.phase
#define PHASE_OF(c) c.phase
#define NOTE(text) static_assert(sizeof(text) > 0, text)

template <Phase P, typename TileT>
AICORE inline void accumulate(TileT &sum, TileT &part)
{
    if constexpr (P == Phase::Epilogue) {
        TADD(sum, sum, part);
    } else {
        TSUB(sum, sum, part);
    }
}

template <int STEPS, int LAST>
AICORE void phaseUse(__gm__ float *out, __gm__ float *in)
{
    using TileT = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
    using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
    TileT sum;
    TEXPANDS(sum, 0.0f);
    MultiBuffered<2> mb;
    mb.loop<Range<STEPS>, 0, LAST>([&](auto ctx) {
        TileT part;
        GmT src(in + ctx.iter * 16 * 64);
        TLOAD(part, src);
BODY
    });
    GmT dst(out);
    TSTORE(dst, sum);
}

extern "C" __global__ AICORE void phase_use(__gm__ uint8_t *out, __gm__ uint8_t *in)
{
#if defined(__DAV_C220_VEC__)
    phaseUse<5, 2>(reinterpret_cast<__gm__ float *>(out), reinterpret_cast<__gm__ float *>(in));
#endif
}
"""

ONE_LOOP = [("0", "5", None)]
PER_PHASE = [("0", "3", "Phase::Main"), ("3", "5", "Phase::Epilogue")]


def loops_of(tmp_path, body: str) -> list[tuple]:
    path = tmp_path / "phase_use.cpp"
    path.write_text(KERNEL.replace("BODY", body))
    k = load_kernel(str(path), FrontendOptions())
    return [(str(f.start), str(f.stop), f.phase) for f in ir.walk(k.body)
            if isinstance(f, ir.For) and f.kind == "MultiBuffered"]


@pytest.mark.parametrize("body", [
    # The phase compared at run time: one loop, the phase a value of the iteration.
    "if (ctx.phase == Phase::Epilogue) { TADD(sum, sum, part); }",
    # A comment that names the context alone, and one that spells a template argument.
    ("// hand ctx to the helper? no: accumulate<ctx.phase>(sum, part);\n"
    "/* ctx */ if (ctx.phase == Phase::Epilogue) { TADD(sum, sum, part); }"),
    # A string literal that spells a constant use.
    ('NOTE("accumulate<ctx.phase>(sum, part); if constexpr (ctx.phase == Phase::Main)");\n'
    "TADD(sum, sum, part);"),
    # Only the iteration and the lane are read.
    "if (ctx.iter >= 3 && ctx.bufferId == 1) { TADD(sum, sum, part); }",
], ids=["runtime-compare", "comment", "string", "iter-and-lane"])
def test_a_body_with_no_constant_use_of_the_phase_is_one_loop(tmp_path, body):
    assert loops_of(tmp_path, body) == ONE_LOOP


@pytest.mark.parametrize("body", [
    "accumulate<ctx.phase>(sum, part);",
    # Odd spacing and a comment inside the member access.
    "accumulate<\n            ctx\n            . /* which phase */ phase\n        >(sum, part);",
    # A macro that writes the whole access, and one that is given the context.
    "accumulate<CURRENT_PHASE>(sum, part);",
    "accumulate<PHASE_OF(ctx)>(sum, part);",
    # `if constexpr` with a comment between its keywords.
    "if /* at compile time */ constexpr (ctx.phase == Phase::Epilogue) { TADD(sum, sum, part); }",
    # A `const` copy of the phase is a constant expression.
    "const Phase here = ctx.phase;\n        accumulate<here>(sum, part);",
], ids=["template-arg", "odd-formatting", "object-macro", "function-macro", "if-constexpr", "const-copy"])
def test_a_constant_use_of_the_phase_splits_the_loop_per_phase(tmp_path, body):
    assert loops_of(tmp_path, body) == PER_PHASE


def needs_constant_phase_in(body: str) -> bool:
    """phase_use's answer on the kernel's lambda, straight from clang's tree (for bodies the
    front end does not lower)."""
    source = KERNEL.replace("BODY", body)
    tu = ci.Index.create().parse("phase_use.cpp", args=parse_args("a2a3", "vec"),
                                 unsaved_files=[("phase_use.cpp", source)])
    lam = next(c for c in tu.cursor.walk_preorder()
               if c.kind == ci.CursorKind.LAMBDA_EXPR and c.location.file.name == "phase_use.cpp")
    body_cursor = next(c for c in lam.get_children() if c.kind == ci.CursorKind.COMPOUND_STMT)
    return needs_constant_phase(body_cursor, "ctx", lam.extent.start.offset, body_cursor.extent.start.offset)


@pytest.mark.parametrize("body, expected", [
    ("helperTakingTheContext(ctx);", True),
    ("auto lane = ctx;", True),
    ("using Lane = decltype(ctx);", True),
    # An inner lambda's own `ctx` is not the loop's context.
    ("auto twice = [&](int ctx) { return ctx * 2; };", False),
    ("if (ctx.phase == Phase::Main) { TADD(sum, sum, part); }", False),
    ("accumulate<ctx.phase>(sum, part);", True),
])
def test_the_context_passed_on_whole_counts_as_a_constant_use(body, expected):
    assert needs_constant_phase_in(body) is expected
