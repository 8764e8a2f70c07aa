// lanes_then_update.cpp with the lane's work in a helper the lane body calls with its lane
// index, loading the slice through a view of it (as pto-isa's a2a3 AUTO flash attention's
// compute_p pops its FIFO strip): the helper has no name for the counter over the slice's copies
// and the update tile, only for the lane (`row`). UB is limited (`--capacity UB=12K`) so that the
// memory plan lays the update tile over one of the slice's copies.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

#ifndef LANES
#define LANES 4  // slices per step (-D LANES=N)
#endif

using namespace pto;
using namespace pto_auto;

using TileT = Tile<TileType::Vec, float, 16, 64>;
using HalfT = Tile<TileType::Vec, float, 8, 128>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
using GmHalfT = GlobalTensor<float, Shape<1, 1, 1, 8, 128>, Stride<1, 1, 1, 128, 1>>;

template <typename T>
AICORE inline void scale_slice(T &slice, __gm__ float *s, __gm__ float *parts, int blk, int row)
{
    HalfT view;
    TRESHAPE(view, slice);
    GmHalfT gS(s + (blk * LANES + row) * 1024);
    TLOAD(view, gS);
    TMULS(slice, slice, 2.0f);
    GmT gP(parts + (blk * LANES + row) * 1024);
    TSTORE(gP, slice);
}

extern "C" __global__ AICORE void lanes_in_helper_then_update(__gm__ float *out, __gm__ float *parts,
                                                              __gm__ float *s, __gm__ float *u, int blocks)
{
    TileT acc;
    TileT upd;
    MultiBuffered<2> mb;
    TEXPANDS(acc, 0.0f);
    for (int blk = 0; blk < blocks; ++blk) {
        mb.loop<Range<LANES>>([&](auto ctx) {
            TileT slice;
            scale_slice(slice, s, parts, blk, ctx.iter);
        });
        GmT gU(u + blk * 1024);
        TLOAD(upd, gU);
        TADD(acc, acc, upd);
    }
    GmT gO(out);
    TSTORE(gO, acc);
}
