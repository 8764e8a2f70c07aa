// A helper template whose early return sits in an `if constexpr` branch its instantiation
// drops: with kStopEarly false nothing returns, so the helper's later statements run
// unconditionally and are lowered without a test of the return.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

template <bool kStopEarly>
AICORE inline void scale_then_load(TileT &acc, TileT &next, __gm__ float *src, int k)
{
    if constexpr (kStopEarly) {
        if (k > 2) {
            return;
        }
    }
    TMULS(acc, acc, 0.5f);
    GmT g(src + k * 512);
    TLOAD(next, g);
    TADD(acc, acc, next);
}

extern "C" __global__ AICORE void scale_loads(__gm__ float *out, __gm__ float *in)
{
    TileT acc;
    TileT next;
    GmT first(in);
    TLOAD(acc, first);
    for (int k = 1; k < 4; ++k) {
        scale_then_load<false>(acc, next, in, k);
    }
    GmT dst(out);
    TSTORE(dst, acc);
}
