// A cube -> vector FIFO (a5) whose pushes go through the fixpipe: the cube core computes a 16x32
// float product and pushes it converted to half (FixpipeParams), scaled per channel by a Scaling
// tile, into one slot; the first vector core pops it, adds one and stores the result.
#include "cluster_preambles.hpp"
#include <pto/common/fifo.hpp>
#include <pto/common/fixpipe.hpp>

extern "C" __global__ AICORE void fifo_fixpipe(__gm__ half *out, __gm__ half *a, __gm__ half *b,
                                               __gm__ uint64_t *scale)
{
    using Product = TileAcc<float, 16, 32>;
    using OutT = Tile<TileType::Vec, half, 16, 32, BLayout::RowMajor, 16, 32>;
    using ToHalf = FixpipeParams<LayoutMode_t::NZ2ND, QuantMode_t::VDEQF16>;
    using Fifo = TPipe<0, Direction::DIR_C2V, 16 * 32 * sizeof(half), 1>;
    Fifo fifo((__gm__ void *)nullptr, 0x0, 0x0);
    if constexpr (ON_CUBE) {
        using MatA = Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor>;
        using MatB = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
        using ScaleMat = Tile<TileType::Mat, uint64_t, 1, 32, BLayout::RowMajor, 1, 32, SLayout::NoneBox>;
        using Scales = Tile<TileType::Scaling, uint64_t, 1, 32, BLayout::RowMajor, 1, 32, SLayout::NoneBox>;
        MatA aMat;
        MatB bMat;
        ScaleMat scaleMat;
        Scales scales;
        TileLeft<half, 16, 32> aLeft;
        TileRight<half, 32, 32> bRight;
        Product product;
        TASSIGN(aMat, 0x0);
        TASSIGN(bMat, 0x400);
        TASSIGN(scaleMat, 0xC00);
        TASSIGN(scales, 0x0);
        TASSIGN(aLeft, 0x0);
        TASSIGN(bRight, 0x0);
        TASSIGN(product, 0x0);
        GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>> gA(a);
        GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>> gB(b);
        GlobalTensor<uint64_t, Shape<1, 1, 1, 1, 32>, Stride<1, 1, 1, 32, 1>> gScale(scale);
        TLOAD(aMat, gA);
        TLOAD(bMat, gB);
        TLOAD(scaleMat, gScale);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        set_flag(PIPE_MTE2, PIPE_FIX, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_FIX, EVENT_ID0);
        TMOV(aLeft, aMat);
        TMOV(bRight, bMat);
        TMOV(scales, scaleMat);
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        TMATMUL(product, aLeft, bRight);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        SET_QUANT_VECTOR(scales);
        pipe_barrier(PIPE_FIX);  // the push reads the scales the move above wrote
        TPUSH<Fifo, Product, ToHalf>(fifo, product);
    }
    if constexpr (ON_VEC) {
        if (get_subblockid() == 0) {
            OutT slot;
            OutT y;
            TASSIGN(y, 0x400);  // just past the one half-typed slot
            GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>> gOut(out);
            TPOP<Fifo, OutT, TileSplitAxis::TILE_NO_SPLIT>(fifo, slot);
            TADDS(y, slot, (half)1.0f);
            TFREE<Fifo, TileSplitAxis::TILE_NO_SPLIT>(fifo);
            set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            TSTORE(gOut, y);
        }
    }
}
