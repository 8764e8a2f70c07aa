// The load of a panel and its fold into a running sum are one helper, `step`, called from two
// loops; every step but the last folds through `fold`, the last through `fold_last`. The copies
// of `step` are planned apart, and the second loop's (which runs the last step) waits for the
// load before the `if`. Written once for both copies, that wait covers everything a wait inside
// `fold` would order in the first copy, so none is written there: one flag pair for the load.
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

AICORE inline void step(int k, int last, TileT &sum, TileT &panel, __gm__ float *in)
{
    GmT g(in + k * 512);
    TLOAD(panel, g);
    if (k < last) {
        fold(sum, panel);
    } else {
        fold_last(sum, panel);
    }
}

extern "C" __global__ AICORE void fold_panels_twice(__gm__ float *out, __gm__ float *in)
{
    constexpr int kSteps = 6;
    TileT sum;
    TileT panel;
    GmT first(in);
    TLOAD(sum, first);
    TMULS(sum, sum, 2.0f);
    for (int k = 1; k < 3; ++k) {
        step(k, kSteps - 1, sum, panel, in);
    }
    for (int k = 3; k < kSteps; ++k) {
        step(k, kSteps - 1, sum, panel, in);
    }
    GmT dst(out);
    TSTORE(dst, sum);
}
