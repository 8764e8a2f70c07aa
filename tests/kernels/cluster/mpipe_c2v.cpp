// One cluster (a5) streaming four products from L0C into the vector cores' UB through an
// explicit-index FIFO of two entries (`TMPipe` with a VEC_FIFO): the kernel names each tile's
// entry itself (setTileId), the cube core waits for a free entry from the second tile on, and
// each vector core frees its half of an entry once its vector work has read it.
#include "cluster_preambles.hpp"

constexpr int TILES = 4;

extern "C" __global__ AICORE void mpipe_c2v(__gm__ float *out, __gm__ half *a, __gm__ half *b)
{
    using Fifo = TMPipe<0, FIFOType::VEC_FIFO, 2, 2, AccT, HalfT, false, 0>;
    HalfT entries[2];
    TASSIGN(entries[0], 0x0);
    TASSIGN(entries[1], 0x800);
    Fifo fifo((uint32_t)(uint64_t)entries[0].data());
#if defined(__DAV_CUBE__)
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
        fifo.prod.setTileId(t, 0);
        fifo.prod.setAllocateStatus(t >= 1);  // the constructor's credit covers the second tile
        TPUSH(product, fifo);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
    }
    fifo.prod.allocate();  // the last tile's free (the destructor takes the one before)
#endif
#if defined(__DAV_VEC__)
    HalfT y;
    TASSIGN(y, 0x1000);
    int sub = get_subblockid();
    for (int t = 0; t < TILES; ++t) {
        GmHalf gOut(out + (t * 2 + sub) * HALF);
        fifo.cons.setTileId(t, 0);
        TPOP(entries[t % 2], fifo);
        TMULS(y, entries[t % 2], 0.5f);
        TFREE(fifo);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(gOut, y);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    }
#endif
}
