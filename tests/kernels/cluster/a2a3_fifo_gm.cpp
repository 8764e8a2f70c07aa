// A cube -> vector FIFO on a2a3 handled through GlobalTensors: the cube core takes a slot of the
// two-slot GM ring with TALLOC, stores each of four 32x32 products there itself and announces it
// with TPUSH; each vector core pops its 16-row half of the slot as a GlobalTensor, loads it,
// frees the slot, doubles the rows and stores them.
#include "cluster_preambles.hpp"
#include <pto/common/fifo.hpp>

extern "C" __global__ AICORE void fifo_a2a3_gm(__gm__ float *out, __gm__ half *a, __gm__ half *b,
                                               __gm__ float *ring)
{
    using Fifo = TPipe<2, Direction::DIR_C2V, 32 * 32 * sizeof(float), 2>;
    Fifo fifo((__gm__ void *)ring, 0x0, 0x0);
    if constexpr (ON_CUBE) {
        MatT aMat;
        MatT bMat;
        LeftT aLeft;
        RightT bRight;
        AccT product;
        TASSIGN(aMat, 0x0);
        TASSIGN(bMat, 0x800);
        TASSIGN(aLeft, 0x0);
        TASSIGN(bRight, 0x0);
        TASSIGN(product, 0x0);
        GmIn gB(b);
        TLOAD(bMat, gB);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
        for (int i = 0; i < 4; i++) {
            GmIn gA(a + i * 32 * 32);
            wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            TLOAD(aMat, gA);
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
            GmW slot;
            TALLOC<Fifo, GmW, TileSplitAxis::TILE_UP_DOWN>(fifo, slot);
            TSTORE(slot, product);
            TPUSH<Fifo, GmW, TileSplitAxis::TILE_UP_DOWN>(fifo, slot);
            set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
        }
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
    }
    if constexpr (ON_VEC) {
        HalfT x;
        HalfT y;
        TASSIGN(x, 0x0);
        TASSIGN(y, 0x1000);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
        for (int i = 0; i < 4; i++) {
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
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    }
}
