// A lane loop over a double-buffered tile (one copy per lane), then a loop of run-time trips
// whose body runs another lane loop over a tile of the same shape. Each loop declares its tile
// in its own body; UB is tight (three tiles live throughout), so both loops' copies take the
// same two lanes: the later loop's first load of a lane must wait for that lane's last reader
// in the loop before, and only for it, not for the other lane's reader after it.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;
using TileT = Tile<TileType::Vec, float, 64, 128>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 64, 128>, Stride<1, 1, 1, 128, 1>>;

constexpr int kSteps = 4;
constexpr int kLanes = 2;

extern "C" __global__ AICORE void lanes_across_loops(__gm__ float *out, __gm__ float *in, __gm__ float *upd, int n)
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
    }
    GmT o(out);
    TSTORE(o, acc);
}
