// A helper whose load runs only on some calls (a flag it is passed): the straight-line call
// passes the constant 1, which decides the helper's `if` in that copy; the loop's call passes a
// run-time value. The decided copy keeps the `if` in its place, so both copies take the same
// lines: the load's flag after the `if`, whatever the loop's calls pass.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void maybe_refresh(int fresh, TileT &t, TileT &o, __gm__ float *src, __gm__ float *dst)
{
    GmT in(src);
    GmT out(dst);
    if (fresh != 0) {
        TLOAD(t, in);
    }
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t: MTE2 -> V
    TADDS(o, t, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    TSTORE(out, o);
}

extern "C" __global__ AICORE void refresh_some(__gm__ float *out, __gm__ float *in, int period)
{
    TileT t;
    TASSIGN(t, 0x0);  // UB 2 KiB
    TileT o;
    TASSIGN(o, 0x800);  // UB 2 KiB
    maybe_refresh(1, t, o, in, out);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: t free at start (V -> MTE2)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: o free at start (MTE3 -> V)
    for (int i = 1; i < 6; ++i) {
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // WAR t: V -> MTE2 (next iteration)
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR o: MTE3 -> V (next iteration)
        maybe_refresh(i % period == 0, t, o, in + i * 512, out + i * 512);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // WAR t: V -> MTE2 (next iteration)
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR o: MTE3 -> V (next iteration)
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: t (V -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: o (MTE3 -> V)
}
