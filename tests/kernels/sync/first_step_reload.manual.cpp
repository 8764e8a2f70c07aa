// A tile stored before a loop is loaded again by a helper in the loop's first step only (its
// other steps load a second tile on the same pipe and add it). Every step first loads and
// scales its own input. The reload must wait for the store before the loop (WAR on MTE3 ->
// MTE2), but the loads that come before it in the first step need not.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void accumulate(int step, TileT &acc, TileT &part, __gm__ float *src)
{
    GmT in(src + step * 512);
    if (step == 0) {
        TLOAD(acc, in);
    } else {
        TLOAD(part, in);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)(step % 2));  // RAW part: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(step % 2));  // RAW part: MTE2 -> V
        TADD(acc, acc, part);
    }
}

extern "C" __global__ AICORE void first_step_reload(__gm__ float *out, __gm__ float *in, __gm__ float *src)
{
    constexpr int kSteps = 4;
    TileT acc;
    TASSIGN(acc, 0x0);  // UB 2 KiB
    TileT part;
    TileT x;
    GmT seed(in);
    TLOAD(acc, seed);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW acc: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW acc: MTE2 -> V
    TMULS(acc, acc, 3.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW acc: V -> MTE3
    GmT head(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW acc: V -> MTE3
    TSTORE(head, acc);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // WAR acc: MTE3 -> MTE2
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: acc free at start (MTE3 -> V)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: x, part free at start (V -> MTE2)
    for (int k = 0; k < kSteps; ++k) {
        GmT gx(in + (k + 1) * 512);
        TASSIGN(part, 0x800 + (k % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        TASSIGN(x, 0x1800 + (k % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        TLOAD(x, gx);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)((k % 2) + 2));  // RAW/WAW x: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)((k % 2) + 2));  // RAW/WAW x: MTE2 -> V
        TMULS(x, x, 0.5f);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR acc: MTE3 -> V (next iteration)
        if (k == 0) wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // WAR acc: MTE3 -> MTE2
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // WAR/WAW x, part: V -> MTE2 (next iteration)
        accumulate(k, acc, part, src);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID4);  // RAW/WAW acc: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID4);  // RAW/WAW acc: MTE2 -> V
        pipe_barrier(PIPE_V);  // RAW acc: TADD -> TADD on PIPE_V
        TADD(acc, acc, x);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW acc: V -> MTE3
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // WAR/WAW x, part: V -> MTE2 (next iteration)
        GmT dst(out + (k + 1) * 512);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW acc: V -> MTE3
        TSTORE(dst, acc);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR acc: MTE3 -> V (next iteration)
    }
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: acc (MTE3 -> V)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: x, part (V -> MTE2)
}
