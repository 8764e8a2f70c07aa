// A helper whose load runs every other step (`if (step % 2 == 0) TLOAD(panel, ...)`), called in
// two loops of one loop over heads. The second call reuses its panel across steps, so its copy
// needs the V -> MTE2 flag back to the next load, set only when the next step loads (a guarded
// set, `if (((step + 1) % 2) == 0) set_flag(...)`); the first call's tile is loaded once per
// pass and needs none. The helper has one text: the guarded flag is written in both copies,
// its guard read through each call's own step.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void add_panel(TileT &acc, TileT &panel, int step, __gm__ float *src)
{
    if (step % 2 == 0) {
        GmT in(src);
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR panel: V -> MTE2 (next iteration)
        TLOAD(panel, in);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW panel: MTE2 -> V
    }
    if ((step % 2) == 0) wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW panel: MTE2 -> V
    TADD(acc, acc, panel);
    if (((step + 1) % 2) == 0) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR panel: V -> MTE2 (next iteration)
}

extern "C" __global__ AICORE void guarded_flag_in_one_copy(__gm__ float *out, __gm__ float *in)
{
    TileT acc;
    TASSIGN(acc, 0x0);  // UB 2 KiB
    TileT panel;
    TASSIGN(panel, 0x800);  // UB 2 KiB
    TileT once;
    TASSIGN(once, 0x1000);  // UB 2 KiB
    TEXPANDS(acc, 0.0f);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: panel free at start (V -> MTE2)
    for (int h = 0; h < 2; ++h) {
        for (int j = 0; j < 2; ++j) {
            pipe_barrier(PIPE_V);  // RAW acc: TADD -> TADD on PIPE_V
            add_panel(acc, once, j, in + h * 4096);
        }
        for (int k = 0; k < 6; ++k) {
            pipe_barrier(PIPE_V);  // RAW acc: TADD -> TADD on PIPE_V
            add_panel(acc, panel, k, in + h * 4096 + (k / 2 + 1) * 512);
        }
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW acc: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: panel (V -> MTE2)
    GmT dst(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW acc: V -> MTE3
    TSTORE(dst, acc);
}
