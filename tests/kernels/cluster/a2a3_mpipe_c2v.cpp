// One a2a3 cluster streaming products from L0C to the vector cores through an explicit-index
// FIFO in GM (`TMPipe` with a GM_FIFO, two entries, no local FIFO). Each entry holds two 32x32
// accumulators side by side as blocks: the cube core pushes both (the kernel names the block
// with setEntryOffset), waits for a free entry before the first only, and raises "filled" by
// hand after the second. Each vector core pops its 16 rows of both blocks into one 16x64 tile
// (two column strips) and halves them into `out`. The signals are ffts flags: the cube core's
// waits stall the whole core until both vector cores freed.
#include "cluster_preambles.hpp"

constexpr int TILES = 3;
constexpr int BLOCK = 32 * 32;

extern "C" __global__ AICORE void a2a3_mpipe_c2v(__gm__ float *out, __gm__ float *ring, __gm__ half *a,
                                                 __gm__ half *b)
{
    using RowsT = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
    using Fifo = TMPipe<2, FIFOType::GM_FIFO, 2, 2, AccT, RowsT, false, 0>;
    Fifo fifo(ring);
#if defined(__DAV_C220_CUBE__)
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
    fifo.prod.setRecordStatus(false);
    for (int t = 0; t < TILES; ++t) {
        for (int s = 0; s < 2; ++s) {
            TMATMUL(product, aLeft, bRight);
            set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
            wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
            fifo.prod.setTileId(t, s);
            fifo.prod.setAllocateStatus(s == 0);
            fifo.prod.setEntryOffset(s * BLOCK * sizeof(float));
            TPUSH(product, fifo);
            set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
            wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
        }
        fifo.prod.record();  // both blocks of the entry are stored
    }
#endif
#if defined(__DAV_C220_VEC__)
    using GmRows = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
    RowsT x;
    RowsT y;
    TASSIGN(x, 0x0);
    TASSIGN(y, 0x1000);
    int sub = get_subblockid();
    for (int t = 0; t < TILES; ++t) {
        GmRows gOut(out + (t * 2 + sub) * 16 * 64);
        fifo.cons.setTileId(t, 0);
        fifo.cons.setEntryOffset(sub * 16 * 32 * sizeof(float));
        TPOP(x, fifo);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TMULS(y, x, 0.5f);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(gOut, y);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    }
#endif
}
