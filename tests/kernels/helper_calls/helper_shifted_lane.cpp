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
    TMULS(o, t, 0.25f);
    TSTORE(out, o);
}

extern "C" __global__ AICORE void shifted_lane(__gm__ float *out, __gm__ float *in)
{
    MultiBuffered<2> mb;
    mb.loop<Range<kTotal - kFirst>>([&](auto ctx) {
        TileT t;
        TileT o;
        scale_block(ctx.iter + kFirst, t, o, in, out);
    });
    TileT t;
    TileT o;
    scale_block(kTotal, t, o, in, out);
}
