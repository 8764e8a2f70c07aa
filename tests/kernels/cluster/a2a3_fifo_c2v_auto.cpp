// The AUTO form of a2a3_fifo_c2v.cpp: the same two-slot ring in GM, written with the ffts flags the
// FIFO stands for (flag 0 "slot filled", flag 1 "slot freed"), and no address or flag within a
// core. The cube core multiplies four 32x32 blocks and stores each product into slot i % 2 once
// both vector cores freed it; each vector core loads its 16-row half, adds one and stores it.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void fifo_a2a3_c2v(__gm__ float *out, __gm__ half *a, __gm__ half *b,
                                                __gm__ float *ring)
{
#if defined(__DAV_CUBE__)
    using MatT = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using GmIn = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmSlot = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    MatT aMat;
    MatT bMat;
    TileLeft<half, 32, 32> aLeft;
    TileRight<half, 32, 32> bRight;
    TileAcc<float, 32, 32> product;
    for (int i = 0; i < 4; i++) {
        GmIn gA(a + i * 32 * 32);
        GmIn gB(b);
        GmSlot gSlot(ring + (i % 2) * 32 * 32);
        TLOAD(aMat, gA);
        TLOAD(bMat, gB);
        TMOV(aLeft, aMat);
        TMOV(bRight, bMat);
        TMATMUL(product, aLeft, bRight);
        if (i >= 2) {
            wait_flag_dev(1);  // both vector cores have loaded the slot's previous tile
        }
        TSTORE(gSlot, product);
        ffts_cross_core_sync(PIPE_FIX, getFFTSMsg(0x2, 0));
    }
    wait_flag_dev(1);
    wait_flag_dev(1);
#endif
#if defined(__DAV_VEC__)
    using HalfT = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using GmOut = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    HalfT x;
    HalfT y;
    for (int i = 0; i < 4; i++) {
        GmOut gOut(out + (i * 32 + get_subblockid() * 16) * 32);
        GmOut gPart(ring + ((i % 2) * 32 + get_subblockid() * 16) * 32);
        wait_flag_dev(0);
        TLOAD(x, gPart);
        ffts_cross_core_sync(PIPE_MTE2, getFFTSMsg(0x2, 1));
        TADDS(y, x, 1.0f);
        TSTORE(gOut, y);
    }
#endif
}
