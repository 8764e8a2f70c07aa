// A runtime trip count and a runtime choice inside the loop: with mode 0 a second input is
// loaded and added, otherwise the tile is scaled. Both must be synchronized for any n and mode.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void scale_or_add(__gm__ float *out, __gm__ float *in, __gm__ float *bias, int n, int mode)
{
    TileT x;
    TileT b;
    for (int i = 0; i < n; ++i) {
        GmT gIn(in + i * 512);
        GmT gOut(out + i * 512);
        TLOAD(x, gIn);
        if (mode == 0) {
            GmT gB(bias + i * 512);
            TLOAD(b, gB);
            TADD(x, x, b);
        } else {
            TMULS(x, x, 2.0f);
        }
        TSTORE(gOut, x);
    }
}
