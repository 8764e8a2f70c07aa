// A helper called in a nested MultiBuffered loop (its tiles one copy per lane) and once after
// it. The inner loop runs two steps over two buffers, so the lane is the inner
// step alone, which the helper sees as its parameter `sub` (the outer step reaches it only as
// `blk + 1`): the flags inside the helper take one id per lane, written with `sub`.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void halve_block(int step, int sub, TileT &t, TileT &o, __gm__ float *src, __gm__ float *dst)
{
    GmT in(src + (step * 2 + sub) * 512);
    GmT out(dst + (step * 2 + sub) * 512);
    TLOAD(t, in);
    set_flag(PIPE_MTE2, PIPE_V, (event_t)(sub % 2));  // RAW t: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, (event_t)(sub % 2));  // RAW t: MTE2 -> V
    TMULS(o, t, 0.5f);
    set_flag(PIPE_V, PIPE_MTE3, (event_t)(sub % 2));  // RAW o: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, (event_t)(sub % 2));  // RAW o: V -> MTE3
    TSTORE(out, o);
}

extern "C" __global__ AICORE void nested_lanes(__gm__ float *out, __gm__ float *in)
{
    MultiBuffered<2> mb;
    using Inner = MultiBuffered<2>::NestedLoopInvoker<Range<2>>;
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: t free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // prime: t free at start (V -> MTE2)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: o free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: o free at start (MTE3 -> V)
    mb.loop<Range<3, 2>>([&](auto outer, Inner inner) {
        int blk = outer.iter;
        inner.loop([&](auto ctx) {
            TileT t;
            TASSIGN(t, (ctx.iter % 2) * 0x800);  // UB 2 x 2 KiB, one per lane
            TileT o;
            TASSIGN(o, 0x1000 + (ctx.iter % 2) * 0x800);  // UB 2 x 2 KiB, one per lane
            wait_flag(PIPE_V, PIPE_MTE2, (event_t)((ctx.iter % 2) + 2));  // WAR t: V -> MTE2 (next iteration)
            wait_flag(PIPE_MTE3, PIPE_V, (event_t)(ctx.iter % 2));  // WAR o: MTE3 -> V (next iteration)
            halve_block(blk + 1, ctx.iter, t, o, in, out);
            set_flag(PIPE_V, PIPE_MTE2, (event_t)((ctx.iter % 2) + 2));  // WAR t: V -> MTE2 (next iteration)
            set_flag(PIPE_MTE3, PIPE_V, (event_t)(ctx.iter % 2));  // WAR o: MTE3 -> V (next iteration)
        });
    });
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: t (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // drain: t (V -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: o (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: o (MTE3 -> V)
    TileT t;
    TASSIGN(t, 0x2000);  // UB 2 KiB
    TileT o;
    TASSIGN(o, 0x2800);  // UB 2 KiB
    halve_block(0, 0, t, o, in, out);
}
