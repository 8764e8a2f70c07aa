// Blocks 0 .. n - 2 of `in` are summed into y. A run of one block (n == 2) also keeps a
// copy of s in the spill block at 20; every block stores the column c to block i of `out`.
// Inside the loop `i < n - 1` holds, so from the second block on `n > 2` is true: no run
// stores the spill block twice, and the column of block 20 (i = 20, so n >= 22) is never
// written in a run that writes the spill block (n == 2). Neither store needs a barrier.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using ColT = Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor, 8, 1>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
using GmCol = GlobalTensor<float, Shape<1, 1, 1, 8, 1>, Stride<1, 1, 1, 1, 1>>;
extern "C" __global__ AICORE void spill_single_block(__gm__ float *out, __gm__ float *in, int n)
{
    TileT x, y, s;
    ColT c;
    GmT gSpill(out + 20 * 512);
    TEXPANDS(y, 0.0f);
    TEXPANDS(s, 1.5f);
    TEXPANDS(c, -2.0f);
    for (int i = 0; i < n - 1; ++i) {
        GmT gIn(in + i * 512);
        TLOAD(x, gIn);
        if (n > 2) {
            TADD(y, y, x);
        } else {
            TSTORE(gSpill, s);
        }
        GmCol gCol(out + i * 512 + 8);
        TSTORE(gCol, c);
    }
    GmT gSum(out + 21 * 512);
    TSTORE(gSum, y);
}
