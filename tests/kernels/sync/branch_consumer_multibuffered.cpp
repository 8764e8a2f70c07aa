// branch_consumer_in_helper.cpp with small tiles: the panel gets two copies, and the flag of its
// load one id per copy, which the helpers cannot name. The wait stays before the `if`, on the
// copy's id: the next step's load then overlaps this step's fold, which is worth more than the
// rescale's overlap with the load (that would take one id for both copies).
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void fold(TileT &sum, TileT &panel)
{
    TMULS(sum, sum, 0.5f);
    TADD(sum, sum, panel);
}

AICORE inline void fold_last(TileT &sum, TileT &panel)
{
    TMULS(sum, sum, 0.5f);
    TADD(sum, sum, panel);
    TMULS(sum, sum, 0.25f);
}

extern "C" __global__ AICORE void fold_panels(__gm__ float *out, __gm__ float *in)
{
    constexpr int kSteps = 5;
    TileT sum;
    TileT panel;
    GmT first(in);
    TLOAD(sum, first);
    TMULS(sum, sum, 2.0f);
    for (int k = 1; k < kSteps; ++k) {
        GmT g(in + k * 512);
        TLOAD(panel, g);
        if (k < kSteps - 1) {
            fold(sum, panel);
        } else {
            fold_last(sum, panel);
        }
    }
    GmT dst(out);
    TSTORE(dst, sum);
}
