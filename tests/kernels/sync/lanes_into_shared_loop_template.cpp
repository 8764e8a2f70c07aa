// A lane loop over a double-buffered tile (one copy per lane), then a loop of run-time trips
// whose body runs another lane loop over a tile of the same shape and then a single tile placed
// over lane 0's copy (UB is tight: three tiles live throughout). The later loop frees its lanes
// with one flag per iteration of its outer loop (the single tile shares lane 0's bytes), so its
// first loads take no lane flag of their own: each waits for its lane's last reader in the loop
// before, and only for it, not for the other lane's reader after it (its rewrite without a
// counter over the lanes and the single tile: .lanes.manual.cpp). A template kernel with two
// instantiations rewritten together: by default both take that counter, declared once before
// the later loop (.manual.cpp).
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;
using TileT = Tile<TileType::Vec, float, 64, 128>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 64, 128>, Stride<1, 1, 1, 128, 1>>;

constexpr int kSteps = 4;
constexpr int kLanes = 2;

template <int kUpdateRow>
__global__ AICORE void lanes_into_shared_loop_t(__gm__ float *out, __gm__ float *in, __gm__ float *upd, int n)
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
    mb.loop<Range<kSteps>>([&](auto ctx) {
        TileT part;
        GmT src(in + ctx.iter * 8192);
        TLOAD(part, src);
        TMUL(part, part, scale);
        TADD(acc, acc, part);
    });
    for (int t = 0; t < n; ++t) {
        mb.loop<Range<kLanes>>([&](auto ctx) {
            TileT part;
            GmT src(in + (kSteps + t * kLanes + ctx.iter) * 8192);
            TLOAD(part, src);
            TADD(part, part, bias);
            TADD(acc, acc, part);
        });
        TileT update;
        GmT u(upd + (t + kUpdateRow) * 8192);
        TLOAD(update, u);
        TADD(acc, acc, update);
    }
    GmT o(out);
    TSTORE(o, acc);
}

template __global__ AICORE void lanes_into_shared_loop_t<2>(__gm__ float *, __gm__ float *, __gm__ float *, int);
template __global__ AICORE void lanes_into_shared_loop_t<3>(__gm__ float *, __gm__ float *, __gm__ float *, int);
