// A vector -> cube FIFO on a2a3 (DIR_V2C): each vector core adds one to its 16-row half of four
// 32x32 blocks and pushes it into a two-slot ring in GM; the cube core pops each whole block into
// one of two local L1 slots and multiplies it by a fixed left operand.
#include "cluster_preambles.hpp"
#include <pto/common/fifo.hpp>

extern "C" __global__ AICORE void fifo_a2a3_v2c(__gm__ float *out, __gm__ half *a, __gm__ half *b,
                                                __gm__ half *ring)
{
    using Fifo = TPipe<4, Direction::DIR_V2C, 32 * 32 * sizeof(half), 2>;
    Fifo fifo((__gm__ void *)ring, 0x0, 0x10000);
    if constexpr (ON_VEC) {
        using HalfT = Tile<TileType::Vec, half, 16, 32, BLayout::RowMajor, 16, 32>;
        using GmHalf = GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        HalfT x;
        HalfT y;
        TASSIGN(x, 0x0);
        TASSIGN(y, 0x1000);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
        for (int i = 0; i < 4; i++) {
            GmHalf gIn(b + (i * 32 + get_subblockid() * 16) * 32);
            wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
            TLOAD(x, gIn);
            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
            TADDS(y, x, (half)1.0f);
            set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
            set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            TPUSH<Fifo, HalfT, TileSplitAxis::TILE_UP_DOWN>(fifo, y);
            set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
        }
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    }
    if constexpr (ON_CUBE) {
        using MatT = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
        using GmIn = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        using GmOut = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        MatT aMat;
        MatT bMat;
        TileLeft<half, 32, 32> aLeft;
        TileRight<half, 32, 32> bRight;
        TileAcc<float, 32, 32> product;
        TASSIGN(aMat, 0x0);
        TASSIGN(aLeft, 0x0);
        TASSIGN(bRight, 0x0);
        TASSIGN(product, 0x0);
        GmIn gA(a);
        TLOAD(aMat, gA);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
        for (int i = 0; i < 4; i++) {
            GmOut gOut(out + i * 32 * 32);
            wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            TPOP<Fifo, MatT, TileSplitAxis::TILE_UP_DOWN>(fifo, bMat);
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
            TSTORE(gOut, product);
            set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
        }
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
    }
}
