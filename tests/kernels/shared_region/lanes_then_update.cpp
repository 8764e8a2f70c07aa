// The shape of pto-isa's a2a3 AUTO flash attention's vector main loop, small: every step of a
// loop with a run-time trip count runs a MultiBuffered lane loop over a slice tile (two copies,
// one per lane), then loads a single update tile declared before the loop. UB is limited
// (`--capacity UB=12K`) so that the memory plan lays the update tile over one of the slice's
// copies: the next step's first lane loads into bytes this step's update reads.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

#ifndef LANES
#define LANES 4  // slices per step (-D LANES=N)
#endif

using namespace pto;
using namespace pto_auto;

using TileT = Tile<TileType::Vec, float, 16, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

extern "C" __global__ AICORE void lanes_then_update(__gm__ float *out, __gm__ float *parts, __gm__ float *s,
                                                    __gm__ float *u, int blocks)
{
    TileT acc;
    TileT upd;
    MultiBuffered<2> mb;
    TEXPANDS(acc, 0.0f);
    for (int blk = 0; blk < blocks; ++blk) {
        mb.loop<Range<LANES>>([&](auto ctx) {
            TileT slice;
            GmT gS(s + (blk * LANES + ctx.iter) * 1024);
            GmT gP(parts + (blk * LANES + ctx.iter) * 1024);
            TLOAD(slice, gS);
            TMULS(slice, slice, 2.0f);
            TSTORE(gP, slice);
        });
        GmT gU(u + blk * 1024);
        TLOAD(upd, gU);
        TADD(acc, acc, upd);
    }
    GmT gO(out);
    TSTORE(gO, acc);
}
