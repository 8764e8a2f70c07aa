// A tile declared in a helper the loop calls: loaded, bumped and stored each iteration (two
// pipes, written afresh), but the helper cannot name the loop's copy index, so it keeps one copy.
#include <pto/pto-inst.hpp>
using namespace pto;
using RowsT = Tile<TileType::Vec, float, 16, 64>;
using RowsGm = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void BumpBlock(__gm__ float *out, __gm__ float *in)
{
    RowsT rows;
    RowsGm src(in), dst(out);
    TLOAD(rows, src);
    TADDS(rows, rows, 1.0f);
    TSTORE(dst, rows);
}

extern "C" __global__ AICORE void helper_tile_in_loop(__gm__ float *out, __gm__ float *in)
{
    for (int b = 0; b < 4; ++b) {
        BumpBlock(out + b * 1024, in + b * 1024);
    }
}
