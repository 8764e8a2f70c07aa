// A hand-synchronized fp32 matmul that sets the cube's modes through its tiles: the left tile is
// K aligned, and the multiply rounds its inputs to TF32 until the mode is reset.
#include <pto/pto-inst.hpp>

using namespace pto;

using MatA = Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, float, 16, 16, BLayout::RowMajor, 16, 16, SLayout::ColMajor>;
using LeftT = TileLeft<float, 16, 16, 16, 16>;
using RightT = TileRight<float, 16, 16, 16, 16>;
using AccT = TileAcc<float, 16, 16, 16, 16>;
using Gm = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
using GmB = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 1, 16>, Layout::DN>;

extern "C" __global__ AICORE void tf32_gemm(__gm__ float *c, __gm__ float *a, __gm__ float *b)
{
    MatA aMat;
    MatB bMat;
    LeftT aLeft;
    RightT bRight;
    AccT acc;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x400);
    TASSIGN(aLeft, 0x0);
    TASSIGN(bRight, 0x0);
    TASSIGN(acc, 0x0);
    aLeft.SetKAligned(true);
    Gm ga(a);
    GmB gb(b);
    Gm gc(c);
    TLOAD(aMat, ga);
    TLOAD(bMat, gb);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(aLeft, aMat);
    TMOV(bRight, bMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    aLeft.SetMadTF32Mode(RoundMode::CAST_RINT);
    TMATMUL(acc, aLeft, bRight);
    aLeft.ResetMadMode();
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(gc, acc);
}
