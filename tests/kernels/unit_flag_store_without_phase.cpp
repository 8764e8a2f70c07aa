// a2a3, manual: each pass multiplies two 64 x 64 half tiles into one accumulator with
// AccPhase::Final and stores the result. The store has no STPhase::Final, so it reads the
// result without clearing the accumulator's unit flag: from the second pass on the matmul's
// unit-flag check waits for a clear that never comes. The flags below order everything else.
#include <pto/pto-inst.hpp>
using namespace pto;
using MatT = Tile<TileType::Mat, half, 64, 64, BLayout::ColMajor, 64, 64, SLayout::RowMajor>;
using LeftT = TileLeft<half, 64, 64>;
using RightT = TileRight<half, 64, 64>;
using AccT = TileAcc<float, 64, 64>;
using GmIn = GlobalTensor<half, Shape<1, 1, 1, 64, 64>, Stride<1, 1, 1, 64, 1>>;
using GmOut = GlobalTensor<float, Shape<1, 1, 1, 64, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void passes(__gm__ float *c, __gm__ half *a, __gm__ half *b, int count)
{
    MatT aMat;
    MatT bMat;
    LeftT aLeft;
    RightT bRight;
    AccT acc;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x2000);
    TASSIGN(aLeft, 0x0);
    TASSIGN(bRight, 0x0);
    TASSIGN(acc, 0x0);
    for (int t = 0; t < count; ++t) {
        GmIn gA(a + t * 4096);
        GmIn gB(b + t * 4096);
        GmOut gC(c + t * 4096);
        TLOAD(aMat, gA);
        TLOAD(bMat, gB);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // the inputs are in L1
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        TMOV(aLeft, aMat);
        TMOV(bRight, bMat);
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  // the operands are in L0A / L0B
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        TMATMUL<AccPhase::Final>(acc, aLeft, bRight);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);  // the result is in L0C
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        TSTORE(gC, acc);
        pipe_barrier(PIPE_ALL);  // the next pass reuses every tile
    }
}
