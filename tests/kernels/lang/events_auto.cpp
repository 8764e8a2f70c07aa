// The AUTO-mode twin of events_manual.cpp: the same computation without placement or events.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void scaled_sum(__gm__ float *out, __gm__ float *a, __gm__ float *b)
{
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
    using TileT = Tile<TileType::Vec, float, 16, 64>;
    TileT lhs, rhs, sum;
    Gm gA(a), gB(b), gOut(out);
    TLOAD(lhs, gA);
    TLOAD(rhs, gB);
    TADD(sum, lhs, rhs);
    TMULS(sum, sum, 0.5f);
    TSTORE(gOut, sum);
    for (int i = 1; i < 3; ++i) {
        TLOAD(sum, gOut);
        TMULS(sum, sum, 2.0f);
        TSTORE(gOut, sum);
    }
}
