// The kernel of loop_bound_implies_test.cpp with an unsigned n and loop variable: there n - 1
// wraps at n == 0 and the loop runs on with `n > 2` false in every block, so the loop's
// condition says nothing the tests inside can use, and both stores keep their barriers.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using ColT = Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor, 8, 1>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
using GmCol = GlobalTensor<float, Shape<1, 1, 1, 8, 1>, Stride<1, 1, 1, 1, 1>>;
extern "C" __global__ AICORE void spill_single_block(__gm__ float *out, __gm__ float *in, unsigned n)
{
    TileT x, y, s;
    ColT c;
    GmT gSpill(out + 20 * 512);
    TEXPANDS(y, 0.0f);
    TEXPANDS(s, 1.5f);
    TEXPANDS(c, -2.0f);
    for (unsigned i = 0; i < n - 1; ++i) {
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
