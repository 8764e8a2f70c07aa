// One cluster (a5) whose cores never signal each other: the cube core multiplies two 32x32 half
// matrices into `prod`; each vector core doubles its 16-row half of `in` into `out`. They run at
// once, so `check` runs them together: nothing orders one core's GM accesses against another's.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void unsignalled(__gm__ float *prod, __gm__ float *out, __gm__ float *in,
                                              __gm__ half *a, __gm__ half *b)
{
#if defined(__DAV_CUBE__)
    using Mat = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using GmIn = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmP = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    Mat aMat;
    Mat bMat;
    TileLeft<half, 32, 32> aLeft;
    TileRight<half, 32, 32> bRight;
    TileAcc<float, 32, 32> acc;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x800);
    TASSIGN(aLeft, 0x0);
    TASSIGN(bRight, 0x0);
    TASSIGN(acc, 0x0);
    GmIn gA(a);
    GmIn gB(b);
    GmP gP(prod);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(aLeft, aMat);
    TMOV(bRight, bMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL(acc, aLeft, bRight);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(gP, acc);
#endif
#if defined(__DAV_VEC__)
    using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor>;
    using GmH = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    Half x;
    TASSIGN(x, 0x0);
    GmH gIn(in + get_subblockid() * 16 * 32);
    GmH gOut(out + get_subblockid() * 16 * 32);
    TLOAD(x, gIn);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(x, x, 2.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(gOut, x);
#endif
}
