#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void prefetch(__gm__ float *out, __gm__ float *in)
{
    constexpr int N = 6;
    TileT x[2];
    TileT y[2];
    GmT g0(in);
    TLOAD(x[0], g0);
    for (int i = 0; i < N; ++i) {
        if (i + 1 < N) {
            GmT gNext(in + (i + 1) * 512);
            TLOAD(x[(i + 1) % 2], gNext);
        }
        TADDS(y[i % 2], x[i % 2], 1.0f);
        GmT gOut(out + i * 512);
        TSTORE(gOut, y[i % 2]);
    }
}
