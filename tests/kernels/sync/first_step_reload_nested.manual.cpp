// first_step_reload_runtime.cpp inside an outer loop of run-time length: each row stores the tile
// and then reloads it in the first step of an inner loop of run-time length, so the set and the
// wait of that first step pair up in every row, whichever loop does not run.
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

extern "C" __global__ AICORE void nested_rt(__gm__ float *out, __gm__ float *in, __gm__ float *src, int m, int n)
{
    TileT acc;
    TileT part;
    TileT x;
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: acc free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: acc free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // prime: acc free at start (MTE3 -> MTE2)
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID3);  // prime: acc free at start (MTE3 -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: x, part free at start (V -> MTE2)
    for (int r = 0; r < m; ++r) {
        GmT seed(in + r * 512);
        TASSIGN(acc, (r % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        wait_flag(PIPE_MTE3, PIPE_MTE2, (event_t)((r % 2) + 2));  // WAR acc: MTE3 -> MTE2 (next iteration)
        TLOAD(acc, seed);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)((r % 2) + 4));  // RAW/WAW acc: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)((r % 2) + 4));  // RAW/WAW acc: MTE2 -> V
        TMULS(acc, acc, 3.0f);
        set_flag(PIPE_V, PIPE_MTE3, (event_t)(r % 2));  // RAW acc: V -> MTE3
        GmT head(out + r * 4096);
        wait_flag(PIPE_V, PIPE_MTE3, (event_t)(r % 2));  // RAW acc: V -> MTE3
        pipe_barrier(PIPE_MTE3);  // WAW head: TSTORE -> TSTORE on PIPE_MTE3
        TSTORE(head, acc);
        for (int k = 0; k < n; ++k) {
            GmT gx(in + (k + 8) * 512);
            TASSIGN(part, 0x1000 + (k % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
            TASSIGN(x, 0x2000 + (k % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
            wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // WAR/WAW x, part: V -> MTE2 (next iteration)
            TLOAD(x, gx);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)((k % 2) + 2));  // RAW/WAW x: MTE2 -> V
            wait_flag(PIPE_MTE2, PIPE_V, (event_t)((k % 2) + 2));  // RAW/WAW x: MTE2 -> V
            TMULS(x, x, 0.5f);
            if (k == 0) set_flag(PIPE_MTE3, PIPE_MTE2, (event_t)((r % 2) + 4));  // WAR acc: MTE3 -> MTE2
            wait_flag(PIPE_MTE3, PIPE_V, (event_t)(r % 2));  // WAR acc: MTE3 -> V (next iteration)
            if (k == 0) wait_flag(PIPE_MTE3, PIPE_MTE2, (event_t)((r % 2) + 4));  // WAR acc: MTE3 -> MTE2
            accumulate(k, acc, part, src);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)((r % 2) + 4));  // RAW/WAW acc: MTE2 -> V
            wait_flag(PIPE_MTE2, PIPE_V, (event_t)((r % 2) + 4));  // RAW/WAW acc: MTE2 -> V
            pipe_barrier(PIPE_V);  // RAW acc: TADD -> TADD on PIPE_V
            TADD(acc, acc, x);
            set_flag(PIPE_V, PIPE_MTE3, (event_t)(r % 2));  // RAW acc: V -> MTE3
            set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // WAR/WAW x, part: V -> MTE2 (next iteration)
            GmT dst(out + r * 4096 + (k + 1) * 512);
            wait_flag(PIPE_V, PIPE_MTE3, (event_t)(r % 2));  // RAW acc: V -> MTE3
            TSTORE(dst, acc);
            set_flag(PIPE_MTE3, PIPE_V, (event_t)(r % 2));  // WAR acc: MTE3 -> V (next iteration)
        }
        set_flag(PIPE_MTE3, PIPE_MTE2, (event_t)((r % 2) + 2));  // WAR acc: MTE3 -> MTE2 (next iteration)
    }
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: acc (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: acc (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // drain: acc (MTE3 -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID3);  // drain: acc (MTE3 -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: x, part (V -> MTE2)
}
