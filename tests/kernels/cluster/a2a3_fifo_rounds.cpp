// An a2a3 cube -> vector FIFO built anew in each of three rounds: a helper constructs a two-slot
// ring in GM, the cube core pushes two 32x32 products through it and each vector core pops its
// 16-row half of each, doubles it and stores it. The pipe's destructor at the helper's end makes
// the cube core wait for the free signal its pushes did not take, so the next round's pipe starts
// on slots the vector cores are done with.
#include "cluster_preambles.hpp"
#include <pto/common/fifo.hpp>

using Fifo = TPipe<2, Direction::DIR_C2V, 32 * 32 * sizeof(float), 2>;

template <typename Acc>
AICORE inline void round(__gm__ float *ring, __gm__ float *out, Acc &product, HalfT &x, HalfT &y)
{
    Fifo fifo((__gm__ void *)ring, 0x0, 0x0);
    for (int i = 0; i < 2; i++) {
        if constexpr (ON_CUBE) {
            GmW slot;
            TALLOC<Fifo, GmW, TileSplitAxis::TILE_UP_DOWN>(fifo, slot);
            TSTORE(slot, product);
            TPUSH<Fifo, GmW, TileSplitAxis::TILE_UP_DOWN>(fifo, slot);
        }
        if constexpr (ON_VEC) {
            GmHalf gOut(out + (i * 32 + get_subblockid() * 16) * 32);
            GmHalf part;
            TPOP<Fifo, GmHalf, TileSplitAxis::TILE_UP_DOWN>(fifo, part);
            wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
            TLOAD(x, part);
            TFREE<Fifo, GmHalf, TileSplitAxis::TILE_UP_DOWN>(fifo, part);
            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
            TMULS(y, x, 2.0f);
            set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
            set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            TSTORE(gOut, y);
            set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
        }
    }
}

extern "C" __global__ AICORE void fifo_a2a3_rounds(__gm__ float *out, __gm__ half *a, __gm__ half *b,
                                                   __gm__ float *ring)
{
    AccT product;
    HalfT x;
    HalfT y;
    TASSIGN(product, 0x0);
    TASSIGN(x, 0x0);
    TASSIGN(y, 0x1000);
    if constexpr (ON_CUBE) {
        MatT aMat;
        MatT bMat;
        LeftT aLeft;
        RightT bRight;
        LoadOperands(aMat, bMat, aLeft, bRight, a, b);
        TMATMUL(product, aLeft, bRight);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    }
    if constexpr (ON_VEC) {
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    }
    for (int r = 0; r < 3; r++) {
        round(ring, out + r * 64 * 32, product, x, y);
    }
    if constexpr (ON_VEC) {
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    }
}
