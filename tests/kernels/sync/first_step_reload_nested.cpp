// first_step_reload_runtime.cpp inside an outer loop of run-time length: each row stores the tile
// and then reloads it in the first step of an inner loop of run-time length, so the set and the
// wait of that first step pair up in every row, whichever loop does not run.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void accumulate(int step, TileT &acc, TileT &part, __gm__ float *src)
{
    GmT in(src + step * 512);
    if (step == 0) {
        TLOAD(acc, in);
    } else {
        TLOAD(part, in);
        TADD(acc, acc, part);
    }
}

extern "C" __global__ AICORE void nested_rt(__gm__ float *out, __gm__ float *in, __gm__ float *src, int m, int n)
{
    TileT acc;
    TileT part;
    TileT x;
    for (int r = 0; r < m; ++r) {
        GmT seed(in + r * 512);
        TLOAD(acc, seed);
        TMULS(acc, acc, 3.0f);
        GmT head(out + r * 4096);
        TSTORE(head, acc);
        for (int k = 0; k < n; ++k) {
            GmT gx(in + (k + 8) * 512);
            TLOAD(x, gx);
            TMULS(x, x, 0.5f);
            accumulate(k, acc, part, src);
            TADD(acc, acc, x);
            GmT dst(out + r * 4096 + (k + 1) * 512);
            TSTORE(dst, acc);
        }
    }
}
