// The matmul helper of helper_declared_l0.cpp called from a short loop, then from a loop long
// enough that the sync planner's bounded run leaves whole periods of it out. That loop also keeps
// a running count that never repeats (`issued`, as a FIFO's tile id would be). The helper's
// counter still has a cycle of its own (two calls per period of two iterations), which the count
// does not enter: the L0 copies' flags take the counter as their id in every call, the long
// loop's included.
#include <pto/pto-inst.hpp>

using namespace pto;

using MatA = Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, half, 32, 16, BLayout::RowMajor, 32, 16, SLayout::ColMajor>;
using Acc = TileAcc<float, 16, 16>;
using GmA = GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
using GmB = GlobalTensor<half, Shape<1, 1, 1, 32, 16>, Stride<1, 1, 1, 1, 32>, Layout::DN>;
using GmC = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;

AICORE inline void block_product(MatA &a, MatB &b, Acc &c)
{
    for (int k = 0; k < 1; ++k) {
        static uint32_t leftCopy = 1;  // copy of left, right this call uses: one counter per instantiation
        leftCopy = (leftCopy + 1) % 2;  // each call takes the next copy, so its loads overlap the previous call's use
        TileLeft<half, 16, 32> left;
        TASSIGN(left, leftCopy * 0x400);  // L0A 2 x 1 KiB, one per lane
        TileRight<half, 32, 16> right;
        TASSIGN(right, leftCopy * 0x400);  // L0B 2 x 1 KiB, one per lane
        wait_flag(PIPE_M, PIPE_MTE1, (event_t)(leftCopy));  // WAR left, right: M -> MTE1 (the copy's next use)
        TEXTRACT(left, a, 0, 0);
        TEXTRACT(right, b, 0, 0);
        set_flag(PIPE_MTE1, PIPE_M, (event_t)(leftCopy));  // RAW left, right: MTE1 -> M
        wait_flag(PIPE_MTE1, PIPE_M, (event_t)(leftCopy));  // RAW left, right: MTE1 -> M
        TMATMUL(c, left, right);
        set_flag(PIPE_M, PIPE_MTE1, (event_t)(leftCopy));  // WAR left, right: M -> MTE1 (the copy's next use)
    }
}

AICORE inline void one_block(int blk, MatA &aMat, MatB &bMat, Acc &acc, __gm__ float *c, __gm__ half *a,
                             __gm__ half *b)
{
    GmA gA(a + blk * 512);
    GmB gB(b + blk * 512);
    GmC gC(c + blk * 256);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(blk % 2));  // RAW a, b: MTE2 -> MTE1
    wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(blk % 2));  // RAW a, b: MTE2 -> MTE1
    block_product(aMat, bMat, acc);
    set_flag(PIPE_M, PIPE_FIX, (event_t)((blk % 2) + 2));  // RAW acc: M -> FIX
    wait_flag(PIPE_M, PIPE_FIX, (event_t)((blk % 2) + 2));  // RAW acc: M -> FIX
    TSTORE(gC, acc);
}

extern "C" __global__ AICORE void helper_declared_l0_long_loop(__gm__ float *c, __gm__ half *a, __gm__ half *b)
{
    int issued = 0;
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // prime: left, right free at start (M -> MTE1)
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // prime: left, right free at start (M -> MTE1)
    for (int blk = 0; blk < 2; ++blk) {
        MatA aMat;
        TASSIGN(aMat, (blk % 2) * 0x400);  // L1 2 x 1 KiB, one per lane
        MatB bMat;
        TASSIGN(bMat, 0x800 + (blk % 2) * 0x400);  // L1 2 x 1 KiB, one per lane
        Acc acc;
        TASSIGN(acc, (blk % 2) * 0x400);  // L0C 2 x 1 KiB, one per lane
        one_block(blk, aMat, bMat, acc, c, a, b);
    }
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);  // prime: aMat, bMat free at start (MTE1 -> MTE2)
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);  // prime: aMat, bMat free at start (MTE1 -> MTE2)
    set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // prime: c free at start (FIX -> M)
    set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // prime: c free at start (FIX -> M)
    for (int blk = 2; blk < 40; ++blk) {
        MatA aMat;
        TASSIGN(aMat, 0x1000 + ((blk - 2) % 2) * 0x400);  // L1 2 x 1 KiB, one per lane
        MatB bMat;
        TASSIGN(bMat, 0x1800 + ((blk - 2) % 2) * 0x400);  // L1 2 x 1 KiB, one per lane
        Acc acc;
        TASSIGN(acc, 0x800 + ((blk - 2) % 2) * 0x400);  // L0C 2 x 1 KiB, one per lane
        wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(((blk - 2) % 2) + 2));  // WAR aMat, bMat: MTE1 -> MTE2 (next iteration)
        wait_flag(PIPE_FIX, PIPE_M, (event_t)((blk - 2) % 2));  // WAR c: FIX -> M (next iteration)
        one_block(blk, aMat, bMat, acc, c, a, b);
        set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(((blk - 2) % 2) + 2));  // WAR aMat, bMat: MTE1 -> MTE2 (next iteration)
        set_flag(PIPE_FIX, PIPE_M, (event_t)((blk - 2) % 2));  // WAR c: FIX -> M (next iteration)
        issued = blk + 1;
    }
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);  // drain: aMat, bMat (MTE1 -> MTE2)
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);  // drain: aMat, bMat (MTE1 -> MTE2)
    wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // drain: c (FIX -> M)
    wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // drain: c (FIX -> M)
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // drain: left, right (M -> MTE1)
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // drain: left, right (M -> MTE1)
}
