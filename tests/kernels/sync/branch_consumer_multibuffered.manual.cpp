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

extern "C" __global__ AICORE void fold_panels(__gm__ float *out, __gm__ float *in)
{
    constexpr int kSteps = 5;
    TileT sum;
    TASSIGN(sum, 0x0);  // UB 2 KiB
    TileT panel;
    GmT first(in);
    TLOAD(sum, first);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW sum: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW sum: MTE2 -> V
    TMULS(sum, sum, 2.0f);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: panel free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: panel free at start (V -> MTE2)
    for (int k = 1; k < kSteps; ++k) {
        GmT g(in + k * 512);
        TASSIGN(panel, 0x800 + ((k - 1) % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)((k - 1) % 2));  // WAR panel: V -> MTE2 (next iteration)
        TLOAD(panel, g);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)((k - 1) % 2));  // RAW panel: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)((k - 1) % 2));  // RAW panel: MTE2 -> V
        pipe_barrier(PIPE_V);  // RAW sum: TADD -> TMULS on PIPE_V
        if (k < kSteps - 1) {
            fold(sum, panel);
        } else {
            fold_last(sum, panel);
        }
        set_flag(PIPE_V, PIPE_MTE2, (event_t)((k - 1) % 2));  // WAR panel: V -> MTE2 (next iteration)
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // RAW sum: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: panel (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: panel (V -> MTE2)
    GmT dst(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // RAW sum: V -> MTE3
    TSTORE(dst, sum);
}
