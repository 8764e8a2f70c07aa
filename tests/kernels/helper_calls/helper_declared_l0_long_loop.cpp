// The matmul helper of helper_declared_l0.cpp called from a short loop, then from a loop long
// enough that the sync planner's bounded run leaves whole periods of it out. That loop also keeps
// a running count that never repeats (`issued`, as a FIFO's tile id would be). The helper's
// counter still has a cycle of its own (two calls per period of two iterations), which the count
// does not enter: the L0 copies' flags take the counter as their id in every call, the long
// loop's included.
#include <pto/pto-inst.hpp>

using namespace pto;

using MatA = Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, half, 32, 16, BLayout::RowMajor, 32, 16, SLayout::ColMajor>;
using Acc = TileAcc<float, 16, 16>;
using GmA = GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
using GmB = GlobalTensor<half, Shape<1, 1, 1, 32, 16>, Stride<1, 1, 1, 1, 32>, Layout::DN>;
using GmC = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;

AICORE inline void block_product(MatA &a, MatB &b, Acc &c)
{
    for (int k = 0; k < 1; ++k) {
        TileLeft<half, 16, 32> left;
        TileRight<half, 32, 16> right;
        TEXTRACT(left, a, 0, 0);
        TEXTRACT(right, b, 0, 0);
        TMATMUL(c, left, right);
    }
}

AICORE inline void one_block(int blk, MatA &aMat, MatB &bMat, Acc &acc, __gm__ float *c, __gm__ half *a,
                             __gm__ half *b)
{
    GmA gA(a + blk * 512);
    GmB gB(b + blk * 512);
    GmC gC(c + blk * 256);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    block_product(aMat, bMat, acc);
    TSTORE(gC, acc);
}

extern "C" __global__ AICORE void helper_declared_l0_long_loop(__gm__ float *c, __gm__ half *a, __gm__ half *b)
{
    int issued = 0;
    for (int blk = 0; blk < 2; ++blk) {
        MatA aMat;
        MatB bMat;
        Acc acc;
        one_block(blk, aMat, bMat, acc, c, a, b);
    }
    for (int blk = 2; blk < 40; ++blk) {
        MatA aMat;
        MatB bMat;
        Acc acc;
        one_block(blk, aMat, bMat, acc, c, a, b);
        issued = blk + 1;
    }
}
