// A panel's load and its fold into a running sum are one helper, `step`, called from two loops
// one after the other (rewritten with --no-multibuffer, so each tile keeps the copies written):
// the first folds one shared `panel`, and each of its steps also scales a side block through
// `scratch`; the second folds the last two panels into the tile array `tails`, indexed by the
// step. The wait for each load goes inside `fold` and `fold_last`, after their first multiply.
// In the second loop nothing lies between one call's load and the next call's, so the load's
// flag needs a credit from V back to MTE2 there; written in the helper, the first loop runs it
// too, and the two loops' copies of that reverse flag are one chain on one id: primed before
// the first loop, drained after the second.
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

extern "C" __global__ AICORE void fold_two_loops(__gm__ float *out, __gm__ float *in, __gm__ float *side)
{
    constexpr int kSteps = 8;
    TileT sum;
    TileT panel;
    TileT tails[2];
    GmT first(in);
    TLOAD(sum, first);
    for (int k = 1; k < kSteps - 2; ++k) {
        TileT scratch;
        GmT s(side + k * 512);
        TLOAD(scratch, s);
        TEXP(scratch, scratch);
        TSTORE(s, scratch);
        step(k, kSteps - 1, sum, panel, in);
    }
    for (int k = kSteps - 2; k < kSteps; ++k) {
        step(k, kSteps - 1, sum, tails[k % 2], in);
    }
    GmT dst(out);
    TSTORE(dst, sum);
}
