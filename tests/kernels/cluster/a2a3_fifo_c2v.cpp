// A cube -> vector FIFO on a2a3 (DIR_C2V): the cube core multiplies four 32x32 blocks and pushes
// each product into a two-slot ring in GM; each vector core pops its 16-row half into one of
// its two local UB slots, adds one and stores it. The ring's ffts flags are the only signals
// between the cores; every other order is the cores' own flags.
#include "cluster_preambles.hpp"
#include <pto/common/fifo.hpp>

extern "C" __global__ AICORE void fifo_a2a3_c2v(__gm__ float *out, __gm__ half *a, __gm__ half *b,
                                                __gm__ float *ring)
{
    using Fifo = TPipe<0, Direction::DIR_C2V, 32 * 32 * sizeof(float), 2>;
    Fifo fifo((__gm__ void *)ring, 0x0, 0x0);
    if constexpr (ON_CUBE) {
        using MatT = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
        using GmIn = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        MatT aMat;
        MatT bMat;
        TileLeft<half, 32, 32> aLeft;
        TileRight<half, 32, 32> bRight;
        TileAcc<float, 32, 32> product;
        TASSIGN(aMat, 0x0);
        TASSIGN(bMat, 0x800);
        TASSIGN(aLeft, 0x0);
        TASSIGN(bRight, 0x0);
        TASSIGN(product, 0x0);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
        for (int i = 0; i < 4; i++) {
            GmIn gA(a + i * 32 * 32);
            GmIn gB(b);
            wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            TLOAD(aMat, gA);
            TLOAD(bMat, gB);
            set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
            TMOV(aLeft, aMat);
            TMOV(bRight, bMat);
            set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
            wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
            wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
            TMATMUL(product, aLeft, bRight);
            set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
            set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
            wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
            TPUSH<Fifo, TileAcc<float, 32, 32>, TileSplitAxis::TILE_UP_DOWN>(fifo, product);
            set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
        }
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
    }
    if constexpr (ON_VEC) {
        using HalfT = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
        using GmOut = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        HalfT x;
        HalfT y;
        TASSIGN(y, 0x10000);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
        for (int i = 0; i < 4; i++) {
            GmOut gOut(out + (i * 32 + get_subblockid() * 16) * 32);
            wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
            TPOP<Fifo, HalfT, TileSplitAxis::TILE_UP_DOWN>(fifo, x);
            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
            TADDS(y, x, 1.0f);
            TFREE<Fifo, TileSplitAxis::TILE_UP_DOWN>(fifo);
            set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
            set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            TSTORE(gOut, y);
            set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
        }
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    }
}
