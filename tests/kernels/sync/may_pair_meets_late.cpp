// Block 20 of `out` is read and scaled into y before a loop that overwrites block i of `out`
// with c, for i up to n - 1: only the iteration i == 20 overwrites what was read. Each
// iteration also stores the row maxima of y, kept in a ring of three, to column i of `cols`,
// so every overwrite from the second iteration on already waits for the vector work that
// waited for the read. The bounded trace runs a few iterations and lets the one with
// i % 3 == 2 stand for i == 20; the overwrites of blocks 0 and 1, which nothing else orders,
// do not meet the read: the read needs no flag of its own.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using ColT = Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor, 8, 1>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
using GmCol = GlobalTensor<float, Shape<1, 1, 1, 8, 1>, Stride<1, 1, 1, 1, 1>>;
extern "C" __global__ AICORE void overwrite_after_read(__gm__ float *out, __gm__ float *cols, int n)
{
    TileT x, y, c, tmp;
    ColT r[3];
    TEXPANDS(c, 0.5f);
    GmT gRead(out + 20 * 512);
    TLOAD(x, gRead);
    TMULS(y, x, 2.0f);
    for (int i = 0; i < n; ++i) {
        GmT gBlock(out + i * 512);
        TSTORE(gBlock, c);
        TROWMAX(r[i % 3], y, tmp);
        GmCol gCol(cols + i * 8);
        TSTORE(gCol, r[i % 3]);
    }
}
