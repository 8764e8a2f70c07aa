// One runtime choice tested twice over the same value. With mode 0 a sum is stored, and then the
// filled tile t; otherwise a scaled copy stays on chip and t is not stored. The flag that orders
// the sum before its store orders the fill of t as well, and no run stores t without it. A copy
// loop of n blocks follows.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void sum_then_fill(__gm__ float *out, __gm__ float *in, int n, int mode)
{
    TileT t;
    TileT x;
    TileT s;
    TileT y;
    GmT gIn(in);
    GmT gSum(out);
    GmT gFill(out + 512);
    TLOAD(x, gIn);
    TEXPANDS(t, 0.5f);
    if (mode == 0) {
        TADDS(s, x, 1.0f);
        TSTORE(gSum, s);
    } else {
        TMULS(s, x, 2.0f);
    }
    if (mode == 0) {
        TSTORE(gFill, t);
    } else {
        TMULS(x, x, 2.0f);
    }
    for (int i = 0; i < n; ++i) {
        GmT gSrc(in + 512 + i * 512);
        GmT gDst(out + 1024 + i * 512);
        TLOAD(y, gSrc);
        TSTORE(gDst, y);
    }
}
