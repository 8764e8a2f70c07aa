// A cube -> vector FIFO through GM (a5, DIR_C2V_GM): the cube core takes a slot of the GM ring
// with TALLOC, stores its 32x32 float product there itself and announces it with TPUSH; each
// vector core pops its 16-row half of the slot as a GlobalTensor, loads it, doubles it, stores
// the result and frees the slot.
#include "cluster_preambles.hpp"
#include <pto/common/fifo.hpp>

extern "C" __global__ AICORE void fifo_gm(__gm__ float *out, __gm__ half *a, __gm__ half *b, __gm__ float *ring)
{
    using Fifo = TPipe<0, Direction::DIR_C2V_GM, 32 * 32 * sizeof(float), 2>;
    using SlotView = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    using HalfView = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    Fifo fifo((__gm__ void *)(uint64_t)ring, 0x0, 0x0);
    if constexpr (ON_CUBE) {
        MatT aMat;
        MatT bMat;
        LeftT aLeft;
        RightT bRight;
        AccT product;
        LoadOperands(aMat, bMat, aLeft, bRight, a, b);
        TASSIGN(product, 0x0);
        TMATMUL(product, aLeft, bRight);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        SlotView slot;
        TALLOC<Fifo, SlotView, TileSplitAxis::TILE_UP_DOWN>(fifo, slot);
        TSTORE(slot, product);
        TPUSH<Fifo, SlotView, TileSplitAxis::TILE_UP_DOWN>(fifo, slot);
    }
    if constexpr (ON_VEC) {
        using HalfT = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
        HalfT x;
        TASSIGN(x, 0x0);
        HalfView part;
        HalfView gOut(out + get_subblockid() * 16 * 32);
        TPOP<Fifo, HalfView, TileSplitAxis::TILE_UP_DOWN>(fifo, part);
        TLOAD(x, part);
        TFREE<Fifo, HalfView, TileSplitAxis::TILE_UP_DOWN>(fifo, part);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TMULS(x, x, 2.0f);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(gOut, x);
    }
}
