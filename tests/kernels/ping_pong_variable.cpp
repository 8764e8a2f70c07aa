#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void pp(__gm__ float *out, __gm__ float *in)
{
    TileT x[2];
    TileT y[2];
    int ping = 0;
    for (int i = 0; i < 8; ++i) {
        GmT gIn(in + i * 512);
        GmT gOut(out + i * 512);
        TLOAD(x[ping], gIn);
        TADDS(y[ping], x[ping], 1.0f);
        TSTORE(gOut, y[ping]);
        ping = 1 - ping;
    }
}
