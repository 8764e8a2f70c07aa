// A loop loads a panel and folds it into a running sum: every step but the last through the
// helper `fold`, the last through `fold_last`, which also scales the result. Both helpers first
// rescale the sum, which does not read the panel: the wait for the panel's load belongs right
// before the add inside each helper, so the rescale runs while the load is still in flight. The
// tiles are large (64 KiB each): the panel has one copy, so its load's flag has one id anyway.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 64, 256>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 64, 256>, Stride<1, 1, 1, 256, 1>>;

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
        GmT g(in + k * 16384);
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
