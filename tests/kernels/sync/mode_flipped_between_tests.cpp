// A runtime choice tested twice, with its variable flipped in between: a run that skips the sum
// (mode 1) stores the filled tile t, so t keeps a flag of its own before that store. A copy loop
// of n blocks follows.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void sum_then_fill_flipped(__gm__ float *out, __gm__ float *in, int n, int mode)
{
    TileT t;
    TileT x;
    TileT s;
    TileT y;
    GmT gIn(in);
    GmT gSum(out);
    GmT gFill(out + 512);
    int m = mode;
    TLOAD(x, gIn);
    TEXPANDS(t, 0.5f);
    if (m == 0) {
        TADDS(s, x, 1.0f);
        TSTORE(gSum, s);
    } else {
        TMULS(s, x, 2.0f);
    }
    m = 1 - m;
    if (m == 0) {
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
