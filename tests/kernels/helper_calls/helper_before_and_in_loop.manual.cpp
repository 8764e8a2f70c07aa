// A helper called once before a loop and again inside it: only the loop's copy needs the flags
// that return its tiles to the next iteration; the helper has one text, so they are written at
// the loop's call (set after it, waited before it).
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void scale_rows(TileT &t, TileT &o, __gm__ float *src, __gm__ float *dst)
{
    GmT in(src);
    GmT out(dst);
    TLOAD(t, in);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t, b: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t, b: MTE2 -> V
    TADDS(o, t, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    TSTORE(out, o);
}

extern "C" __global__ AICORE void prologue_then_steady(__gm__ float *out, __gm__ float *in, __gm__ float *bias)
{
    TileT t;
    TASSIGN(t, 0x0);  // UB 2 KiB
    TileT o;
    TASSIGN(o, 0x800);  // UB 2 KiB
    TileT b;
    TileT s;
    scale_rows(t, o, in, out);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: b free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: b free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // prime: t free at start (V -> MTE2)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: o, s free at start (MTE3 -> V)
    for (int i = 1; i < 6; ++i) {
        GmT g(bias + i * 512);
        TASSIGN(b, 0x1000 + ((i - 1) % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        TASSIGN(s, 0x2000 + ((i - 1) % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)(((i - 1) % 2) + 1));  // WAR b: V -> MTE2 (next iteration)
        TLOAD(b, g);
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // WAR t: V -> MTE2 (next iteration)
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR o, s: MTE3 -> V (next iteration)
        scale_rows(t, o, in + i * 512, out + i * 512);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // WAR t: V -> MTE2 (next iteration)
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR o, s: MTE3 -> V (next iteration)
        TADD(s, b, b);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)(((i - 1) % 2) + 1));  // WAR b: V -> MTE2 (next iteration)
        set_flag(PIPE_V, PIPE_MTE3, (event_t)(((i - 1) % 2) + 4));  // RAW s: V -> MTE3
        GmT r(out + 8192 + i * 512);
        wait_flag(PIPE_V, PIPE_MTE3, (event_t)(((i - 1) % 2) + 4));  // RAW s: V -> MTE3
        TSTORE(r, s);
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: b (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: b (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // drain: t (V -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: o, s (MTE3 -> V)
}
