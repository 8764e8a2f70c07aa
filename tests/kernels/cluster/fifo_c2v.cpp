// A cube -> vector FIFO (a5): the cube core computes TILES products of 32x32 float and pushes
// each into a TPipe of DEPTH slots; each vector core pops its 16-row half of the first POPS of
// them, scales it, frees the slot and stores the result.
#include "cluster_preambles.hpp"
#include <pto/common/fifo.hpp>

#ifndef TILES
#define TILES 4
#endif
#ifndef POPS
#define POPS TILES
#endif
#ifndef DEPTH
#define DEPTH 2
#endif

extern "C" __global__ AICORE void fifo_c2v(__gm__ float *out, __gm__ half *a, __gm__ half *b)
{
    using Product = TileAcc<float, 32, 32>;
    using HalfT = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using Fifo = TPipe<0, Direction::DIR_C2V, 16 * 32 * sizeof(float), DEPTH>;
    Fifo fifo((__gm__ void *)nullptr, 0x0, 0x0);
    if constexpr (ON_CUBE) {
        using MatT = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
        using GmIn = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        MatT aMat;
        MatT bMat;
        TileLeft<half, 32, 32> aLeft;
        TileRight<half, 32, 32> bRight;
        Product product;
        TASSIGN(aMat, 0x0);
        TASSIGN(bMat, 0x800);
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
        for (int t = 0; t < TILES; ++t) {
            TMATMUL(product, aLeft, bRight);
            set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
            wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
            TPUSH<Fifo, Product, TileSplitAxis::TILE_UP_DOWN>(fifo, product);
            set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
            wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
        }
    }
    if constexpr (ON_VEC) {
        using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        HalfT slot;
        HalfT y;
        TASSIGN(y, 0x10000);
        for (int t = 0; t < POPS; ++t) {
            GmHalf gOut(out + (t * 2 + get_subblockid()) * 16 * 32);
            TPOP<Fifo, HalfT, TileSplitAxis::TILE_UP_DOWN>(fifo, slot);
            TMULS(y, slot, 2.0f);
            TFREE<Fifo, TileSplitAxis::TILE_UP_DOWN>(fifo);
            set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            TSTORE(gOut, y);
            set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        }
    }
}
