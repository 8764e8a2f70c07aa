// The cube core moves a product from L0C straight into a vector core's UB (a5). Only the first
// vector core tells the cube core its UB tile is free; the move's AccToVecMode (MODE) says whose
// UB it writes: with SingleModeVec0 (0) that is the core that said so, with SingleModeVec1 (1) it is not.
#include <pto/pto-inst.hpp>

using namespace pto;

#ifndef MODE
#define MODE 0
#endif
constexpr int DESTINATION = MODE;

extern "C" __global__ AICORE void acc_to_ub(__gm__ float *out, __gm__ half *a, __gm__ half *b, __gm__ float *init)
{
    using VecT = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, 16, 16>;
    using GmV = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
    VecT y;
    TASSIGN(y, 0x0);
#if defined(__DAV_CUBE__)
    using MatT = Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor>;
    using GmIn = GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
    MatT aMat;
    MatT bMat;
    TileLeft<half, 16, 16> aLeft;
    TileRight<half, 16, 16> bRight;
    TileAcc<float, 16, 16> product;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x200);
    TASSIGN(aLeft, 0x0);
    TASSIGN(bRight, 0x0);
    TASSIGN(product, 0x0);
    GmIn gA(a);
    GmIn gB(b);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(aLeft, aMat);
    TMOV(bRight, bMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(product, aLeft, bRight);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_intra_block(PIPE_FIX, 1);
    TMOV<VecT, TileAcc<float, 16, 16>, static_cast<AccToVecMode>(DESTINATION)>(y, product);
#endif
#if defined(__DAV_VEC__)
    GmV gInit(init + get_subblockid() * 256);
    GmV gOut(out + get_subblockid() * 256);
    TLOAD(y, gInit);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(gOut, y);
    if (get_subblockid() == 0) {
        set_intra_block(PIPE_MTE3, 1);
    }
#endif
}
