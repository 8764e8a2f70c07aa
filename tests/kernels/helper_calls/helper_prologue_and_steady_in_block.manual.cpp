// helper_prologue_and_steady with a prologue of four steps over its two alternating tiles,
// both loops inside one block: every reverse flag is primed at the block's start and drained at
// its end, so the prologue's per-lane flag and the steady loop's one-id flag, each written in
// both copies, would be live together with ids of their own. The one-id flag stays with the
// steady loop's call; inside the helper both copies take the prologue's per-lane ids.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void scale_block(int step, TileT &t, TileT &o, __gm__ float *src, __gm__ float *dst)
{
    GmT in(src + step * 512);
    GmT out(dst + step * 512);
    wait_flag(PIPE_V, PIPE_MTE2, (event_t)((step % 2) + 2));  // WAR t: V -> MTE2 (next iteration)
    TLOAD(t, in);
    set_flag(PIPE_MTE2, PIPE_V, (event_t)(step % 2));  // RAW t: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, (event_t)(step % 2));  // RAW t: MTE2 -> V
    wait_flag(PIPE_MTE3, PIPE_V, (event_t)(step % 2));  // WAR o: MTE3 -> V (next iteration)
    TMULS(o, t, 2.0f);
    set_flag(PIPE_V, PIPE_MTE3, (event_t)(step % 2));  // RAW o: V -> MTE3
    set_flag(PIPE_V, PIPE_MTE2, (event_t)((step % 2) + 2));  // WAR t: V -> MTE2 (next iteration)
    wait_flag(PIPE_V, PIPE_MTE3, (event_t)(step % 2));  // RAW o: V -> MTE3
    TSTORE(out, o);
    set_flag(PIPE_MTE3, PIPE_V, (event_t)(step % 2));  // WAR o: MTE3 -> V (next iteration)
}

extern "C" __global__ AICORE void prologue_then_steady_in_block(__gm__ float *out, __gm__ float *in)
{
    TileT warm[2];
    TASSIGN(warm[0], 0x0);  // UB 2 KiB
    TASSIGN(warm[1], 0x800);  // UB 2 KiB
    TileT warm_out[2];
    TASSIGN(warm_out[0], 0x1000);  // UB 2 KiB
    TASSIGN(warm_out[1], 0x1800);  // UB 2 KiB
    TileT t;
    TileT o;
    {
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: t free at start (V -> MTE2)
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // prime: t free at start (V -> MTE2)
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: o free at start (MTE3 -> V)
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: o free at start (MTE3 -> V)
        for (int k = 0; k < 4; ++k) {
            scale_block(k, warm[k % 2], warm_out[k % 2], in, out);
        }
        pipe_barrier(PIPE_MTE3);  // WAW out: TSTORE -> TSTORE on PIPE_MTE3
        for (int k = 0; k < 6; ++k) {
            TASSIGN(t, 0x2000 + (k % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
            TASSIGN(o, 0x3000 + (k % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
            scale_block(k + 2, t, o, in, out);
        }
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: t (V -> MTE2)
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // drain: t (V -> MTE2)
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: o (MTE3 -> V)
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: o (MTE3 -> V)
    }
}
