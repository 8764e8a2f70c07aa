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
    TMULS(o, t, 0.5f);
    TSTORE(out, o);
}

extern "C" __global__ AICORE void nested_lanes(__gm__ float *out, __gm__ float *in)
{
    MultiBuffered<2> mb;
    using Inner = MultiBuffered<2>::NestedLoopInvoker<Range<2>>;
    mb.loop<Range<3, 2>>([&](auto outer, Inner inner) {
        int blk = outer.iter;
        inner.loop([&](auto ctx) {
            TileT t;
            TileT o;
            halve_block(blk + 1, ctx.iter, t, o, in, out);
        });
    });
    TileT t;
    TileT o;
    halve_block(0, 0, t, o, in, out);
}
