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
    pipe_barrier(PIPE_V);  // RAW sum: TMULS -> TADD on PIPE_V
    TADD(sum, sum, panel);
}

AICORE inline void fold_last(TileT &sum, TileT &panel)
{
    TMULS(sum, sum, 0.5f);
    pipe_barrier(PIPE_V);  // RAW sum: TMULS -> TADD on PIPE_V
    TADD(sum, sum, panel);
    pipe_barrier(PIPE_V);  // RAW sum: TADD -> TMULS on PIPE_V
    TMULS(sum, sum, 0.25f);
}

AICORE inline void step(int k, int last, TileT &sum, TileT &panel, __gm__ float *in)
{
    GmT g(in + k * 512);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR panel: V -> MTE2 (next iteration)
    TLOAD(panel, g);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW panel: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW panel: MTE2 -> V
    if (k < last) {
        fold(sum, panel);
    } else {
        fold_last(sum, panel);
    }
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR panel: V -> MTE2 (next iteration)
}

extern "C" __global__ AICORE void fold_panels_twice(__gm__ float *out, __gm__ float *in)
{
    constexpr int kSteps = 6;
    TileT sum;
    TASSIGN(sum, 0x0);  // UB 2 KiB
    TileT panel;
    TASSIGN(panel, 0x800);  // UB 2 KiB
    GmT first(in);
    TLOAD(sum, first);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW sum: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW sum: MTE2 -> V
    TMULS(sum, sum, 2.0f);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: panel free at start (V -> MTE2)
    for (int k = 1; k < 3; ++k) {
        step(k, kSteps - 1, sum, panel, in);
    }
    for (int k = 3; k < kSteps; ++k) {
        step(k, kSteps - 1, sum, panel, in);
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW sum: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: panel (V -> MTE2)
    GmT dst(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW sum: V -> MTE3
    TSTORE(dst, sum);
}
