// A lane loop over a double-buffered tile (one copy per lane), then a single tile in the same
// iteration of the outer loop. UB is tight (three tiles live throughout), so the single tile
// shares bytes with one lane's copy: its load must wait for that lane's last reader, and only
// for it, not for the readers of the other lane after it.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;
using TileT = Tile<TileType::Vec, float, 64, 128>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 64, 128>, Stride<1, 1, 1, 128, 1>>;

constexpr int kLanes = 2;

extern "C" __global__ AICORE void lane_release(__gm__ float *out, __gm__ float *in, __gm__ float *upd, int n)
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
