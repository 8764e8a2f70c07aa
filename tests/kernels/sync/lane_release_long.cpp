// Forty steps of a lane loop over two lanes, then a single tile over lane 0's copy. Lane 0 is
// read last at step 38, but the planner's trace keeps only some of the forty steps, so the
// release guarded on step 38 is not offered: it stays after the loop, with a warning.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;
using TileT = Tile<TileType::Vec, float, 64, 128>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 64, 128>, Stride<1, 1, 1, 128, 1>>;

constexpr int kLanes = 40;

extern "C" __global__ AICORE void lane_release_long(__gm__ float *out, __gm__ float *in, __gm__ float *upd, int n)
{
    MultiBuffered<2> mb;
    TileT acc;
    TileT bias;
    TileT scale;
    GmT accIn(out);
    GmT biasIn(upd);
    GmT scaleIn(upd + 8192);
    TLOAD(acc, accIn);
    TLOAD(bias, biasIn);
    TLOAD(scale, scaleIn);
    for (int t = 0; t < n; ++t) {
        mb.loop<Range<kLanes>>([&](auto ctx) {
            TileT part;
            GmT src(in + (t * kLanes + ctx.iter) * 8192);
            TLOAD(part, src);
            TMUL(part, part, scale);
            TADD(acc, acc, part);
        });
        TileT update;
        GmT u(upd + (t + 2) * 8192);
        TLOAD(update, u);
        TADD(acc, acc, update);
        TADD(acc, acc, bias);
    }
    GmT o(out);
    TSTORE(o, acc);
}
