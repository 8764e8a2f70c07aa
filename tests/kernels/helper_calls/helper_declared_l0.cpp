// A matmul helper that declares its own L0A/L0B tiles inside its loop over k (one step here),
// called from a prologue loop, a steady loop and a MultiBuffered body. No caller's loop index is
// in scope where the helper declares them, so the rewrite gives them two copies chosen by a
// counter the helper keeps itself: a function static stepped each time the declaration runs
// (one for every call site, the helper being no template), written before the declaration, with
// each tile's TASSIGN naming it and the MTE1 -> M flag of each copy taking it as its id.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

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

extern "C" __global__ AICORE void helper_declared_l0(__gm__ float *c, __gm__ half *a, __gm__ half *b)
{
    MatA aMat;
    MatB bMat;
    Acc acc;
    for (int blk = 0; blk < 2; ++blk) {
        one_block(blk, aMat, bMat, acc, c, a, b);
    }
    for (int blk = 2; blk < 5; ++blk) {
        one_block(blk, aMat, bMat, acc, c, a, b);
    }
    MultiBuffered<2> mb;
    mb.loop<Range<3>>([&](auto ctx) {
        MatA aLane;
        MatB bLane;
        Acc accLane;
        one_block(ctx.iter + 5, aLane, bLane, accLane, c, a, b);
    });
}
