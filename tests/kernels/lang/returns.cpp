// `return` below the top level of a function: from a loop of the kernel it leaves the kernel (no
// later iteration, nothing after the loop); from a loop of a helper it leaves the helper only.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void scale_until(TileT &t, int stop)
{
    for (int k = 0; k < 4; ++k) {
        if (k == stop) {
            return;
        }
        TMULS(t, t, 2.0f);
    }
    TABS(t, t);
}

extern "C" __global__ AICORE void stop_early(__gm__ float *out, __gm__ float *in, int n, int stop)
{
    TileT x;
    GmT g(in);
    GmT o(out);
    TLOAD(x, g);
    scale_until(x, stop);
    for (int i = 0; i < n; ++i) {
        TADDS(x, x, 1.0f);
        if (i == stop) return;
        TSUBS(x, x, 0.5f);
    }
    TSTORE(o, x);
}
