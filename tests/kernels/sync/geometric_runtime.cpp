// A loop whose variable doubles up to a runtime bound: its trip count is not a count of steps.
// Each pass loads the tile whose index is the variable and folds it into an accumulator.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void doubling(__gm__ float *out, __gm__ float *in, int n)
{
    TileT acc;
    TileT x[2];
    TEXPANDS(acc, 0.0f);
    int k = 0;
    for (int b = 1; b < n; b *= 2) {
        GmT g(in + b * 512);
        TLOAD(x[k], g);
        TADD(acc, acc, x[k]);
        k = 1 - k;
    }
    GmT o(out);
    TSTORE(o, acc);
}
