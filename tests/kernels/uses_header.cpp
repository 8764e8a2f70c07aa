// Calls a helper from a user header that is only reachable with -I tests/kernels/include.
#include <pto/pto-inst.hpp>
#include "tile_helpers.hpp"

using namespace pto;

using TileT = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

extern "C" __global__ AICORE void uses_header(__gm__ float *out, __gm__ float *in)
{
    TileT x[2];
    TileT y;
    for (int i = 0; i < 3; ++i) {
        GmT src(in + i * 1024);
        GmT dst(out + i * 1024);
        TLOAD(x[i % 2], src);
        squarePlusOne(y, x[i % 2]);
        TSTORE(dst, y);
    }
}
