// A helper template on the MultiBuffered phase, called with Phase::Main in a plain loop and
// again with its context's phase in a MultiBuffered loop that follows, both in a loop over
// heads. The MultiBuffered loop is lowered once per phase (its main phase and its epilogue are
// loops of their own), so the helper's Phase::Main instantiation has copies in the plain loop
// and in the main-phase loop, and its Phase::Epilogue instantiation one in the epilogue loop.
// Each copy needs its own V -> MTE2 flag back to the next load of its tile; the helper has one
// text, so each flag is written in every copy, on one id, primed and drained around the loop
// over heads.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

using RowsT = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 8, 64>;
using RowsGm = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
constexpr int BLOCK = 8 * 64;

// Folds one block of rows into the running sum; the last phase also writes the sum out.
template <Phase P>
AICORE inline void fold_block(RowsT &sum, RowsT &part, __gm__ float *src, __gm__ float *dst)
{
    RowsGm in(src);
    TLOAD(part, in);
    TMULS(part, part, 0.5f);
    TADD(sum, sum, part);
    if constexpr (P == Phase::Epilogue) {
        RowsGm out(dst);
        TSTORE(out, sum);
    }
}

extern "C" __global__ AICORE void main_phase_in_and_before_loop(__gm__ float *out, __gm__ float *in)
{
    RowsT sum;
    RowsT first;
    TEXPANDS(sum, 0.0f);
    for (int h = 0; h < 2; ++h) {
        for (int b = 0; b < 3; ++b) {
            fold_block<Phase::Main>(sum, first, in + (h * 8 + b) * BLOCK, out);
        }
        MultiBuffered<2> mb;
        mb.loop<Range<5>, 0, 2>([&](auto ctx) {
            RowsT part;
            fold_block<ctx.phase>(sum, part, in + (h * 8 + 3 + ctx.iter) * BLOCK, out + (h * 5 + ctx.iter) * BLOCK);
        });
    }
}
