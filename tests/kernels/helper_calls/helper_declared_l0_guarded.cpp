// The matmul helper of helper_declared_l0.cpp called once before a loop, once more only when a
// run-time argument says so, then in the loop. How many times the helper has run when the loop
// starts is known only at run time, so which copy each call takes is the counter's run-time
// value (the counter moves only when the guarded call runs), never a copy fixed in advance.
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

extern "C" __global__ AICORE void helper_declared_l0_guarded(__gm__ float *c, __gm__ half *a, __gm__ half *b,
                                                             int extra)
{
    MatA aMat;
    MatB bMat;
    Acc acc;
    one_block(0, aMat, bMat, acc, c, a, b);
    if (extra != 0) {
        one_block(1, aMat, bMat, acc, c, a, b);
    }
    for (int blk = 2; blk < 5; ++blk) {
        one_block(blk, aMat, bMat, acc, c, a, b);
    }
}
