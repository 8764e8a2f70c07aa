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
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW panel: MTE2 -> V
    pipe_barrier(PIPE_V);  // RAW sum: TMULS -> TADD on PIPE_V
    TADD(sum, sum, panel);
}

AICORE inline void fold_last(TileT &sum, TileT &panel)
{
    TMULS(sum, sum, 0.5f);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW panel: MTE2 -> V
    pipe_barrier(PIPE_V);  // RAW sum: TMULS -> TADD on PIPE_V
    TADD(sum, sum, panel);
    pipe_barrier(PIPE_V);  // RAW sum: TADD -> TMULS on PIPE_V
    TMULS(sum, sum, 0.25f);
}

extern "C" __global__ AICORE void fold_panels(__gm__ float *out, __gm__ float *in)
{
    constexpr int kSteps = 5;
    TileT sum;
    TASSIGN(sum, 0x0);  // UB 64 KiB
    TileT panel;
    TASSIGN(panel, 0x10000);  // UB 64 KiB
    GmT first(in);
    TLOAD(sum, first);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW sum: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW sum: MTE2 -> V
    TMULS(sum, sum, 2.0f);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: panel free at start (V -> MTE2)
    for (int k = 1; k < kSteps; ++k) {
        GmT g(in + k * 16384);
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR panel: V -> MTE2 (next iteration)
        TLOAD(panel, g);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW panel: MTE2 -> V
        pipe_barrier(PIPE_V);  // RAW sum: TADD -> TMULS on PIPE_V
        if (k < kSteps - 1) {
            fold(sum, panel);
        } else {
            fold_last(sum, panel);
        }
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR panel: V -> MTE2 (next iteration)
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW sum: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: panel (V -> MTE2)
    GmT dst(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW sum: V -> MTE3
    TSTORE(dst, sum);
}
