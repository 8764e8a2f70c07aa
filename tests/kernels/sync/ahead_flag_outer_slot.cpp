// Three output blocks t, each the sum of two 16x16 products k; the accumulator alternates on
// the outer index (acc[t % 2]). The store of one product frees the accumulator the next k
// writes: a flag carried by the inner loop whose slot is the outer variable.
#include <pto/pto-inst.hpp>
using namespace pto;
using MatA = Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, half, 16, 16, BLayout::RowMajor, 16, 16, SLayout::ColMajor>;
using LeftT = TileLeft<half, 16, 16, 16, 16>;
using RightT = TileRight<half, 16, 16, 16, 16>;
using AccT = TileAcc<float, 16, 16, 16, 16>;
using GmA = GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
using GmB = GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 1, 16>, Layout::DN>;
using GmC = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
extern "C" __global__ AICORE void outer_slot_products(__gm__ float *c, __gm__ half *a, __gm__ half *b)
{
    MatA aMat;
    MatB bMat;
    LeftT aLeft;
    RightT bRight;
    AccT acc[2];
    for (int t = 0; t < 3; ++t) {
        for (int k = 0; k < 2; ++k) {
            GmA gA(a + (t * 2 + k) * 256);
            GmB gB(b + (t * 2 + k) * 256);
            TLOAD(aMat, gA);
            TLOAD(bMat, gB);
            TMOV(aLeft, aMat);
            TMOV(bRight, bMat);
            TMATMUL(acc[t % 2], aLeft, bRight);
            GmC gC(c + (t * 2 + k) * 256);
            TSTORE(gC, acc[t % 2]);
        }
    }
}
