// A tile kept across a runtime loop; only when mode is 0 does an iteration load a second input
// and add it, and every iteration stores the running tile. The load in the branch and the store
// after it meet on some (n, mode) pairs only.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void add_when_mode_zero(__gm__ float *out, __gm__ float *in, __gm__ float *bias,
                                                     int n, int mode)
{
    TileT x;
    TileT b;
    GmT gIn(in);
    TLOAD(x, gIn);
    for (int i = 0; i < n; ++i) {
        GmT gB(bias + i * 512);
        GmT gOut(out + i * 512);
        if (mode == 0) {
            TLOAD(b, gB);
            TADD(x, x, b);
        }
        TSTORE(gOut, x);
    }
}
