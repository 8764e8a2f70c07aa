// A k loop whose body is an inline helper; the L0A / L0B ping-pong index is the helper's
// parameter `slot`, toggled by the caller.
#include <pto/pto-inst.hpp>
using namespace pto;
using MatA = Tile<TileType::Mat, half, 16, 64, BLayout::ColMajor, 16, 64, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, half, 64, 16, BLayout::RowMajor, 64, 16, SLayout::ColMajor>;
using LeftT = TileLeft<half, 16, 16, 16, 16>;
using RightT = TileRight<half, 16, 16, 16, 16>;
using AccT = TileAcc<float, 16, 16, 16, 16>;
using GmA = GlobalTensor<half, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
using GmB = GlobalTensor<half, Shape<1, 1, 1, 64, 16>, Stride<1, 1, 1, 1, 64>, Layout::DN>;
using GmC = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
AICORE inline void KStep(int k, MatA &a, MatB &b, LeftT left[2], RightT right[2], AccT &acc, int slot)
{
    TEXTRACT(left[slot], a, 0, k * 16);
    TEXTRACT(right[slot], b, k * 16, 0);
    if (k == 0) TMATMUL(acc, left[slot], right[slot]); else TMATMUL_ACC(acc, acc, left[slot], right[slot]);
}
extern "C" __global__ AICORE void split_k(__gm__ float *c, __gm__ half *a, __gm__ half *b)
{
    MatA aMat;
    MatB bMat;
    LeftT left[2];
    RightT right[2];
    AccT acc;
    GmA gA(a);
    GmB gB(b);
    GmC gC(c);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    int slot = 0;
    for (int k = 0; k < 4; ++k) {
        KStep(k, aMat, bMat, left, right, acc, slot);
        slot = 1 - slot;
    }
    TSTORE(gC, acc);
}
