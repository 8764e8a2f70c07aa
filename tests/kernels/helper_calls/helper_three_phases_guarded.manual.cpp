// helper_three_phases with the steady loop in an `if` on a run-time value: the steady copy may
// not run at all, and the epilogue's first waits then take the prologue's last signals. The
// copies still share their per-lane ids inside the helper, primed before the first loop and
// drained after the last.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void scale_block(int step, TileT &t, TileT &o, __gm__ float *src, __gm__ float *dst)
{
    GmT in(src + step * 512);
    GmT out(dst + step * 512);
    wait_flag(PIPE_V, PIPE_MTE2, (event_t)(step % 2));  // WAR t: V -> MTE2
    TLOAD(t, in);
    set_flag(PIPE_MTE2, PIPE_V, (event_t)(step % 2));  // RAW t: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, (event_t)(step % 2));  // RAW t: MTE2 -> V
    wait_flag(PIPE_MTE3, PIPE_V, (event_t)(step % 2));  // WAR o: MTE3 -> V
    TMULS(o, t, 2.0f);
    set_flag(PIPE_V, PIPE_MTE2, (event_t)(step % 2));  // WAR t: V -> MTE2
    set_flag(PIPE_V, PIPE_MTE3, (event_t)((step % 2) + 2));  // RAW o: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, (event_t)((step % 2) + 2));  // RAW o: V -> MTE3
    TSTORE(out, o);
    set_flag(PIPE_MTE3, PIPE_V, (event_t)(step % 2));  // WAR o: MTE3 -> V
}

extern "C" __global__ AICORE void helper_three_phases_guarded(__gm__ float *out, __gm__ float *in, int steady)
{
    TileT warm[2];
    TASSIGN(warm[0], 0x0);  // UB 2 KiB
    TASSIGN(warm[1], 0x800);  // UB 2 KiB
    TileT warm_out[2];
    TASSIGN(warm_out[0], 0x1000);  // UB 2 KiB
    TASSIGN(warm_out[1], 0x1800);  // UB 2 KiB
    TileT t[2];
    TASSIGN(t[0], 0x2000);  // UB 2 KiB
    TASSIGN(t[1], 0x2800);  // UB 2 KiB
    TileT o[2];
    TASSIGN(o[0], 0x3000);  // UB 2 KiB
    TASSIGN(o[1], 0x3800);  // UB 2 KiB
    TileT cool[2];
    TASSIGN(cool[0], 0x4000);  // UB 2 KiB
    TASSIGN(cool[1], 0x4800);  // UB 2 KiB
    TileT cool_out[2];
    TASSIGN(cool_out[0], 0x5000);  // UB 2 KiB
    TASSIGN(cool_out[1], 0x5800);  // UB 2 KiB
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: t free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: t free at start (V -> MTE2)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: o free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: o free at start (MTE3 -> V)
    for (int k = 0; k < 4; ++k) {
        scale_block(k, warm[k % 2], warm_out[k % 2], in, out);
    }
    if (steady > 0) {
        for (int k = 4; k < 10; ++k) {
            scale_block(k, t[k % 2], o[k % 2], in, out);
        }
    }
    for (int k = 10; k < 14; ++k) {
        scale_block(k, cool[k % 2], cool_out[k % 2], in, out);
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: t (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: t (V -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: o (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: o (MTE3 -> V)
}
