// A vector -> cube FIFO (a5): each vector core loads its 16-row half of a 32x32 float matrix,
// turns it into the fractal layout and pushes it into a TPipe (DIR_V2C, the halves meet in one
// L1 slot); the cube core pops the whole matrix, multiplies it by itself and stores the product.
#include "cluster_preambles.hpp"
#include <pto/common/fifo.hpp>

extern "C" __global__ AICORE void fifo_v2c(__gm__ float *out, __gm__ float *in)
{
    using Whole = Tile<TileType::Mat, float, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor, 512>;
    using HalfNZ = Tile<TileType::Vec, float, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor, 512>;
    using Fifo = TPipe<2, Direction::DIR_V2C, 32 * 32 * sizeof(float), 2>;
    Fifo fifo((__gm__ void *)nullptr, 0x0, 0x20000);
    if constexpr (ON_VEC) {
        using HalfT = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
        using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        HalfT x;
        HalfNZ xNZ;
        TASSIGN(x, 0x0);
        TASSIGN(xNZ, 0x2000);
        GmHalf gIn(in + get_subblockid() * 16 * 32);
        TLOAD(x, gIn);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TMOV(xNZ, x);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TPUSH<Fifo, HalfNZ, TileSplitAxis::TILE_UP_DOWN>(fifo, xNZ);
    }
    if constexpr (ON_CUBE) {
        using GmOut = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        Whole m;
        TileLeft<float, 32, 32> aLeft;
        TileRight<float, 32, 32> bRight;
        TileAcc<float, 32, 32> product;
        TASSIGN(aLeft, 0x0);
        TASSIGN(bRight, 0x0);
        TASSIGN(product, 0x0);
        GmOut gOut(out);
        TPOP<Fifo, Whole, TileSplitAxis::TILE_UP_DOWN>(fifo, m);
        TMOV(aLeft, m);
        TMOV(bRight, m);
        TFREE<Fifo, TileSplitAxis::TILE_UP_DOWN>(fifo);
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        TMATMUL(product, aLeft, bRight);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        TSTORE(gOut, product);
    }
}
