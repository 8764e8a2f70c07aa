// A GEMM K loop written single buffered: one L1 tile per operand, one L0 tile per operand,
// every step loads, moves and multiplies into the same tiles. 128 x 256 output, K = 2048 in
// 32 steps of 64. ptorewrite gives each step its own copy of the four tiles (two of each), so
// step k + 1 loads while step k multiplies.
#include <pto/pto-inst.hpp>
using namespace pto;
constexpr int STEPS = 32;
using MatA = Tile<TileType::Mat, half, 128, 64, BLayout::ColMajor, 128, 64, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, half, 64, 256, BLayout::RowMajor, 64, 256, SLayout::ColMajor>;
using LeftT = TileLeft<half, 128, 64, 128, 64>;
using RightT = TileRight<half, 64, 256, 64, 256>;
using AccT = TileAcc<float, 128, 256, 128, 256>;
using GmA = GlobalTensor<half, Shape<1, 1, 1, 128, 64>, Stride<1, 1, 1, STEPS * 64, 1>>;
using GmB = GlobalTensor<half, Shape<1, 1, 1, 64, 256>, Stride<1, 1, 1, 1, STEPS * 64>, Layout::DN>;
using GmC = GlobalTensor<float, Shape<1, 1, 1, 128, 256>, Stride<1, 1, 1, 256, 1>>;

extern "C" __global__ AICORE void single_gemm(__gm__ float *c, __gm__ half *a, __gm__ half *b)
{
    MatA aMat;
    MatB bMat;
    LeftT aLeft;
    RightT bRight;
    AccT acc;
    for (int k = 0; k < STEPS; ++k) {
        GmA ga(a + k * 64);
        GmB gb(b + k * 64);
        TLOAD(aMat, ga);
        TLOAD(bMat, gb);
        TMOV(aLeft, aMat);
        TMOV(bRight, bMat);
        if (k == 0) {
            TMATMUL(acc, aLeft, bRight);
        } else {
            TMATMUL_ACC(acc, acc, aLeft, bRight);
        }
    }
    GmC gc(c);
    TSTORE(gc, acc);
}
