// lanes_then_update.cpp as a kernel template of its lane count, instantiated for 2 lanes and 1,
// the two rewritten together (one text): both take one counter over the lanes and the update, and
// their other lines before the loop differ, so those are split into `if constexpr` branches by
// lane count while the counter's declaration, which lines in both branches and in the loop name,
// is written once, outside them. UB is limited as there (`--capacity UB=12K`).
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"


using namespace pto;
using namespace pto_auto;

using TileT = Tile<TileType::Vec, float, 16, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

template <int LANES>
__global__ AICORE void lanes_then_update_t(__gm__ float *out, __gm__ float *parts, __gm__ float *s, __gm__ float *u,
                                           int blocks)
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

template __global__ AICORE void lanes_then_update_t<2>(__gm__ float *, __gm__ float *, __gm__ float *, __gm__ float *,
                                                       int);
template __global__ AICORE void lanes_then_update_t<1>(__gm__ float *, __gm__ float *, __gm__ float *, __gm__ float *,
                                                       int);
