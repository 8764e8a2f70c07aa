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
        MatT aMat;
        MatT bMat;
        LeftT aLeft;
        RightT bRight;
        Product product;
        LoadOperands(aMat, bMat, aLeft, bRight, a, b);
        TASSIGN(product, 0x0);
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
