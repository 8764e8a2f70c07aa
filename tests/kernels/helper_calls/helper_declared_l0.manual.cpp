// A matmul helper that declares its own L0A/L0B tiles inside its loop over k (one step here),
// called from a prologue loop, a steady loop and a MultiBuffered body. No caller's loop index is
// in scope where the helper declares them, so the rewrite gives them two copies chosen by a
// counter the helper keeps itself: a function static stepped each time the declaration runs
// (one for every call site, the helper being no template), written before the declaration, with
// each tile's TASSIGN naming it and the MTE1 -> M flag of each copy taking it as its id.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

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
        TEXTRACT(left, a, 0, 0);
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);  // RAW b: MTE2 -> MTE1
        TEXTRACT(right, b, 0, 0);
        set_flag(PIPE_MTE1, PIPE_M, (event_t)(leftCopy));  // RAW left, right: MTE1 -> M
        wait_flag(PIPE_MTE1, PIPE_M, (event_t)(leftCopy));  // RAW left, right: MTE1 -> M
        TMATMUL(c, left, right);
    }
}

AICORE inline void one_block(int blk, MatA &aMat, MatB &bMat, Acc &acc, __gm__ float *c, __gm__ half *a,
                             __gm__ half *b)
{
    GmA gA(a + blk * 512);
    GmB gB(b + blk * 512);
    GmC gC(c + blk * 256);
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);  // WAR aMat, bMat: MTE1 -> MTE2 (next iteration)
    TLOAD(aMat, gA);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // RAW a: MTE2 -> MTE1
    TLOAD(bMat, gB);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);  // RAW b: MTE2 -> MTE1
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // RAW a: MTE2 -> MTE1
    wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // WAR c: FIX -> M (next iteration)
    block_product(aMat, bMat, acc);
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);  // WAR aMat, bMat: MTE1 -> MTE2 (next iteration)
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID2);  // RAW acc: M -> FIX
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID2);  // RAW acc: M -> FIX
    TSTORE(gC, acc);
    set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // WAR c: FIX -> M (next iteration)
}

extern "C" __global__ AICORE void helper_declared_l0(__gm__ float *c, __gm__ half *a, __gm__ half *b)
{
    MatA aMat;
    TASSIGN(aMat, 0x0);  // L1 1 KiB
    MatB bMat;
    TASSIGN(bMat, 0x400);  // L1 1 KiB
    Acc acc;
    TASSIGN(acc, 0x0);  // L0C 1 KiB
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);  // prime: aMat, bMat free at start (MTE1 -> MTE2)
    set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // prime: c free at start (FIX -> M)
    for (int blk = 0; blk < 2; ++blk) {
        one_block(blk, aMat, bMat, acc, c, a, b);
    }
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // prime: left, right free at start (M -> MTE1)
    for (int blk = 2; blk < 5; ++blk) {
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // WAR left, right: M -> MTE1 (next iteration)
        one_block(blk, aMat, bMat, acc, c, a, b);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // WAR left, right: M -> MTE1 (next iteration)
    }
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // drain: left, right (M -> MTE1)
    MultiBuffered<2> mb;
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // prime: left, right free at start (M -> MTE1)
    mb.loop<Range<3>>([&](auto ctx) {
        MatA aLane;
        TASSIGN(aLane, 0x800 + ctx.bufferId * 0x400);  // L1 2 x 1 KiB, one per lane
        MatB bLane;
        TASSIGN(bLane, 0x1000 + ctx.bufferId * 0x400);  // L1 2 x 1 KiB, one per lane
        Acc accLane;
        TASSIGN(accLane, 0x400 + ctx.bufferId * 0x400);  // L0C 2 x 1 KiB, one per lane
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // WAR left, right: M -> MTE1 (next iteration)
        one_block(ctx.iter + 5, aLane, bLane, accLane, c, a, b);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // WAR left, right: M -> MTE1 (next iteration)
    });
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // drain: left, right (M -> MTE1)
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);  // drain: aMat, bMat (MTE1 -> MTE2)
    wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // drain: c (FIX -> M)
}
