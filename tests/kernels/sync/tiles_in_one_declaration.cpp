// Two tiles declared together (`TileT src, dst;`): both are placed, at different addresses.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void shifted_copy(__gm__ float *out, __gm__ float *in)
{
    TileT src, dst;
    GmT gIn(in);
    GmT gOut(out);
    TLOAD(src, gIn);
    TADDS(dst, src, 2.0f);
    TSTORE(gOut, dst);
}
