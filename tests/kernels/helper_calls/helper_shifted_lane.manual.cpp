// A helper called in a MultiBuffered loop (its tiles one copy per lane) with the step shifted
// by a compile-time count, `ctx.iter + kFirst`, as a kernel that finishes the last tiles of a
// preloaded pipeline does, and once after the loop. Inside the helper the loop's lane is
// `(step - kFirst) % 2`, spelled through the parameter, so the flags inside the helper take one
// id per lane (the call after the loop reads the same line with its own step) instead of one id
// that makes each load wait for the previous lane's store.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

constexpr int kFirst = 3;
constexpr int kTotal = 7;

AICORE inline void scale_block(int step, TileT &t, TileT &o, __gm__ float *src, __gm__ float *dst)
{
    GmT in(src + step * 512);
    GmT out(dst + step * 512);
    TLOAD(t, in);
    set_flag(PIPE_MTE2, PIPE_V, (event_t)((step - 3) % 2));  // RAW t: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, (event_t)((step - 3) % 2));  // RAW t: MTE2 -> V
    TMULS(o, t, 0.25f);
    set_flag(PIPE_V, PIPE_MTE3, (event_t)((step - 3) % 2));  // RAW o: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, (event_t)((step - 3) % 2));  // RAW o: V -> MTE3
    TSTORE(out, o);
}

extern "C" __global__ AICORE void shifted_lane(__gm__ float *out, __gm__ float *in)
{
    MultiBuffered<2> mb;
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: t free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // prime: t free at start (V -> MTE2)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: o free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: o free at start (MTE3 -> V)
    mb.loop<Range<kTotal - kFirst>>([&](auto ctx) {
        TileT t;
        TASSIGN(t, ctx.bufferId * 0x800);  // UB 2 x 2 KiB, one per lane
        TileT o;
        TASSIGN(o, 0x1000 + ctx.bufferId * 0x800);  // UB 2 x 2 KiB, one per lane
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)((ctx.iter % 2) + 2));  // WAR t: V -> MTE2 (next iteration)
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)(ctx.iter % 2));  // WAR o: MTE3 -> V (next iteration)
        scale_block(ctx.iter + kFirst, t, o, in, out);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)((ctx.iter % 2) + 2));  // WAR t: V -> MTE2 (next iteration)
        set_flag(PIPE_MTE3, PIPE_V, (event_t)(ctx.iter % 2));  // WAR o: MTE3 -> V (next iteration)
    });
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: t (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // drain: t (V -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: o (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: o (MTE3 -> V)
    TileT t;
    TASSIGN(t, 0x2000);  // UB 2 KiB
    TileT o;
    TASSIGN(o, 0x2800);  // UB 2 KiB
    scale_block(kTotal, t, o, in, out);
}
