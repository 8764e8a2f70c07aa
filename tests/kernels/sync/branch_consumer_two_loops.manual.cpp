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

AICORE inline void step(int k, int last, TileT &sum, TileT &panel, __gm__ float *in)
{
    GmT g(in + k * 512);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // panel consumed: V -> MTE2 (flag reuse)
    TLOAD(panel, g);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW panel: MTE2 -> V
    if (k < last) {
        fold(sum, panel);
    } else {
        fold_last(sum, panel);
    }
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // panel consumed: V -> MTE2 (flag reuse)
}

extern "C" __global__ AICORE void fold_two_loops(__gm__ float *out, __gm__ float *in, __gm__ float *side)
{
    constexpr int kSteps = 8;
    TileT sum;
    TASSIGN(sum, 0x0);  // UB 2 KiB
    TileT panel;
    TASSIGN(panel, 0x800);  // UB 2 KiB
    TileT tails[2];
    TASSIGN(tails[0], 0x1000);  // UB 2 KiB
    TASSIGN(tails[1], 0x1800);  // UB 2 KiB
    GmT first(in);
    TLOAD(sum, first);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // prime: scratch free at start (MTE3 -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: panel free at start (V -> MTE2)
    for (int k = 1; k < kSteps - 2; ++k) {
        TileT scratch;
        TASSIGN(scratch, 0x2000);  // UB 2 KiB
        GmT s(side + k * 512);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // WAR scratch: MTE3 -> MTE2 (next iteration)
        TLOAD(scratch, s);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);  // RAW/WAW scratch, sum: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);  // RAW/WAW scratch, sum: MTE2 -> V
        TEXP(scratch, scratch);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW scratch: V -> MTE3
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW scratch: V -> MTE3
        TSTORE(s, scratch);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // WAR scratch: MTE3 -> MTE2 (next iteration)
        pipe_barrier(PIPE_V);  // RAW sum: TADD -> TMULS on PIPE_V
        step(k, kSteps - 1, sum, panel, in);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // drain: scratch (MTE3 -> MTE2)
    for (int k = kSteps - 2; k < kSteps; ++k) {
        pipe_barrier(PIPE_V);  // RAW sum: TADD -> TMULS on PIPE_V
        step(k, kSteps - 1, sum, tails[k % 2], in);
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW sum: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: panel (V -> MTE2)
    GmT dst(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW sum: V -> MTE3
    TSTORE(dst, sum);
}
