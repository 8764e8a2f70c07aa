// A tile stored before a loop is loaded again by a helper in the loop's first step only (its
// other steps load a second tile on the same pipe and add it). Every step first loads and
// scales its own input. The reload must wait for the store before the loop (WAR on MTE3 ->
// MTE2), but the loads that come before it in the first step need not.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void accumulate(int step, TileT &acc, TileT &part, __gm__ float *src)
{
    GmT in(src + step * 512);
    if (step == 0) {
        TLOAD(acc, in);
    } else {
        TLOAD(part, in);
        TADD(acc, acc, part);
    }
}

extern "C" __global__ AICORE void first_step_reload(__gm__ float *out, __gm__ float *in, __gm__ float *src)
{
    constexpr int kSteps = 4;
    TileT acc;
    TileT part;
    TileT x;
    GmT seed(in);
    TLOAD(acc, seed);
    TMULS(acc, acc, 3.0f);
    GmT head(out);
    TSTORE(head, acc);
    for (int k = 0; k < kSteps; ++k) {
        GmT gx(in + (k + 1) * 512);
        TLOAD(x, gx);
        TMULS(x, x, 0.5f);
        accumulate(k, acc, part, src);
        TADD(acc, acc, x);
        GmT dst(out + (k + 1) * 512);
        TSTORE(dst, acc);
    }
}
