// Two matmul helpers in the shape of a flash-attention cube loop, all inside one block (as a
// kernel's code for one core type is): `score` runs in a prologue MultiBuffered loop and in the
// first stage of a MultiStaged main loop, `update` in its second stage and in an epilogue
// MultiBuffered loop. The main loop's L1 panels (kMat, pMat, vMat) are declared once before it and
// loaded first in every step, so each gets two copies; the prologue's and epilogue's are declared
// in their bodies, one per lane. Every copy's flags are primed before the one block, so the
// helper's flags that free a panel for its next load are one chain of per-lane ids through the
// calls (the main loop runs `blocks` times, none and once included).
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

using MatA = Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, half, 32, 16, BLayout::RowMajor, 32, 16, SLayout::ColMajor>;
using Left = TileLeft<half, 16, 32>;
using Right = TileRight<half, 32, 16>;
using Acc = TileAcc<float, 16, 16>;
using GmA = GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
using GmB = GlobalTensor<half, Shape<1, 1, 1, 32, 16>, Stride<1, 1, 1, 1, 32>, Layout::DN>;
using GmC = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;

AICORE inline void score(int blk, int sub, MatA &q, MatB &kMat, Left &left, Right &right, Acc &acc,
                         __gm__ float *s, __gm__ half *k)
{
    GmB gK(k + (blk * 3 + sub) * 512);
    GmC gS(s + (blk * 3 + sub) * 256);
    wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(sub % 2));  // WAR kMat: MTE1 -> MTE2
    TLOAD(kMat, gK);
    set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(sub % 2));  // RAW kMat: MTE2 -> MTE1
    wait_flag(PIPE_M, PIPE_MTE1, (event_t)(sub % 2));  // WAR left, right: M -> MTE1
    TEXTRACT(left, q, 0, 0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(sub % 2));  // RAW kMat: MTE2 -> MTE1
    TEXTRACT(right, kMat, 0, 0);
    set_flag(PIPE_MTE1, PIPE_M, (event_t)(sub % 2));  // RAW left, right: MTE1 -> M
    set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(sub % 2));  // WAR kMat: MTE1 -> MTE2
    wait_flag(PIPE_MTE1, PIPE_M, (event_t)(sub % 2));  // RAW left, right: MTE1 -> M
    wait_flag(PIPE_FIX, PIPE_M, (event_t)(sub % 2));  // WAR acc: FIX -> M
    TMATMUL(acc, left, right);
    set_flag(PIPE_M, PIPE_FIX, (event_t)(sub % 2));  // RAW acc: M -> FIX
    set_flag(PIPE_M, PIPE_MTE1, (event_t)(sub % 2));  // WAR left, right: M -> MTE1
    wait_flag(PIPE_M, PIPE_FIX, (event_t)(sub % 2));  // RAW acc: M -> FIX
    TSTORE(gS, acc);
    set_flag(PIPE_FIX, PIPE_M, (event_t)(sub % 2));  // WAR acc: FIX -> M
}

AICORE inline void update(int blk, int sub, MatA &pMat, MatB &vMat, Left &left, Right &right, Acc &acc,
                          __gm__ float *o, __gm__ half *p, __gm__ half *v)
{
    GmB gV(v + (blk * 3 + sub) * 512);
    GmA gP(p + (blk * 3 + sub) * 512);
    GmC gO(o + (blk * 3 + sub) * 256);
    wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)((sub % 2) + 2));  // WAR vMat, pMat: MTE1 -> MTE2 (next iteration)
    TLOAD(vMat, gV);
    TLOAD(pMat, gP);
    set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)((sub % 2) + 2));  // RAW pMat, vMat: MTE2 -> MTE1
    wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)((sub % 2) + 2));  // RAW pMat, vMat: MTE2 -> MTE1
    wait_flag(PIPE_M, PIPE_MTE1, (event_t)((sub % 2) + 2));  // WAR left, right: M -> MTE1 (next iteration)
    TEXTRACT(left, pMat, 0, 0);
    TEXTRACT(right, vMat, 0, 0);
    set_flag(PIPE_MTE1, PIPE_M, (event_t)((sub % 2) + 2));  // RAW left, right: MTE1 -> M
    set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)((sub % 2) + 2));  // WAR vMat, pMat: MTE1 -> MTE2 (next iteration)
    wait_flag(PIPE_MTE1, PIPE_M, (event_t)((sub % 2) + 2));  // RAW left, right: MTE1 -> M
    wait_flag(PIPE_FIX, PIPE_M, (event_t)((sub % 2) + 2));  // WAR acc: FIX -> M (next iteration)
    TMATMUL(acc, left, right);
    set_flag(PIPE_M, PIPE_FIX, (event_t)((sub % 2) + 2));  // RAW acc: M -> FIX
    set_flag(PIPE_M, PIPE_MTE1, (event_t)((sub % 2) + 2));  // WAR left, right: M -> MTE1 (next iteration)
    wait_flag(PIPE_M, PIPE_FIX, (event_t)((sub % 2) + 2));  // RAW acc: M -> FIX
    TSTORE(gO, acc);
    set_flag(PIPE_FIX, PIPE_M, (event_t)((sub % 2) + 2));  // WAR acc: FIX -> M (next iteration)
}

extern "C" __global__ AICORE void helper_main_loop_copies(__gm__ float *s, __gm__ float *o, __gm__ half *q,
                                                          __gm__ half *k, __gm__ half *p, __gm__ half *v, int blocks)
{
    MatA qMat;
    TASSIGN(qMat, 0x0);  // L1 1 KiB
    Left sLeft[2];
    TASSIGN(sLeft[0], 0x0);  // L0A 1 KiB
    TASSIGN(sLeft[1], 0x400);  // L0A 1 KiB
    Right sRight[2];
    TASSIGN(sRight[0], 0x0);  // L0B 1 KiB
    TASSIGN(sRight[1], 0x400);  // L0B 1 KiB
    Acc sAcc[2];
    TASSIGN(sAcc[0], 0x0);  // L0C 1 KiB
    TASSIGN(sAcc[1], 0x400);  // L0C 1 KiB
    Left uLeft[2];
    TASSIGN(uLeft[0], 0x800);  // L0A 1 KiB
    TASSIGN(uLeft[1], 0xc00);  // L0A 1 KiB
    Right uRight[2];
    TASSIGN(uRight[0], 0x800);  // L0B 1 KiB
    TASSIGN(uRight[1], 0xc00);  // L0B 1 KiB
    Acc uAcc[2];
    TASSIGN(uAcc[0], 0x800);  // L0C 1 KiB
    TASSIGN(uAcc[1], 0xc00);  // L0C 1 KiB
    {
        GmA gQ(q);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);  // prime: vMat, pMat free at start (MTE1 -> MTE2)
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);  // prime: vMat, pMat free at start (MTE1 -> MTE2)
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID2);  // prime: left, right free at start (M -> MTE1)
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID3);  // prime: left, right free at start (M -> MTE1)
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID2);  // prime: acc free at start (FIX -> M)
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID3);  // prime: acc free at start (FIX -> M)
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // prime: kMat free at start (MTE1 -> MTE2)
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);  // prime: kMat free at start (MTE1 -> MTE2)
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // prime: left, right free at start (M -> MTE1)
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // prime: left, right free at start (M -> MTE1)
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // prime: acc free at start (FIX -> M)
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // prime: acc free at start (FIX -> M)
        TLOAD(qMat, gQ);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);  // RAW q: MTE2 -> MTE1
        MultiBuffered<2> mb;
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);  // RAW q: MTE2 -> MTE1
        mb.loop<Range<3>>([&](auto ctx) {
            MatB kMat;
            TASSIGN(kMat, 0x400 + ctx.bufferId * 0x400);  // L1 2 x 1 KiB, one per lane
            score(0, ctx.iter, qMat, kMat, sLeft[ctx.iter % 2], sRight[ctx.iter % 2], sAcc[ctx.iter % 2], s, k);
        });
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID4);  // WAR left: M -> MTE1
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID4);  // WAR acc: FIX -> M
        MatB kMat;
        MatA pMat;
        MatB vMat;
        MultiStaged<2> stages;
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID4);  // WAR left: M -> MTE1
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID4);  // WAR acc: FIX -> M
        for (int blk = 0; blk < blocks; ++blk) {
            for (int sub = 0; sub < 3; ++sub) {
                stages.run(
                    [&]() {
                        TASSIGN(kMat, 0xc00 + (sub % 2) * 0x400);  // L1 2 x 1 KiB, one copy per iteration (multi-buffered)
                        TASSIGN(pMat, 0x1400 + (sub % 2) * 0x400);  // L1 2 x 1 KiB, one copy per iteration (multi-buffered)
                        TASSIGN(vMat, 0x1c00 + (sub % 2) * 0x400);  // L1 2 x 1 KiB, one copy per iteration (multi-buffered)
                        score(blk + 1, sub, qMat, kMat, sLeft[sub % 2], sRight[sub % 2], sAcc[sub % 2], s, k);
                    },
                    [&]() {
                        update(blk, sub, pMat, vMat, uLeft[sub % 2], uRight[sub % 2], uAcc[sub % 2], o, p, v);
                    });
            }
        }
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID5);  // WAR left: M -> MTE1
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID5);  // WAR acc: FIX -> M
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID5);  // WAR left: M -> MTE1
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID5);  // WAR acc: FIX -> M
        mb.loop<Range<3>>([&](auto ctx) {
            MatA pMat;
            TASSIGN(pMat, 0x2400 + ctx.bufferId * 0x400);  // L1 2 x 1 KiB, one per lane
            MatB vMat;
            TASSIGN(vMat, 0x2c00 + ctx.bufferId * 0x400);  // L1 2 x 1 KiB, one per lane
            update(blocks, ctx.iter, pMat, vMat, uLeft[ctx.iter % 2], uRight[ctx.iter % 2], uAcc[ctx.iter % 2], o, p, v);
        });
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);  // drain: vMat, pMat (MTE1 -> MTE2)
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);  // drain: vMat, pMat (MTE1 -> MTE2)
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID2);  // drain: left, right (M -> MTE1)
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID3);  // drain: left, right (M -> MTE1)
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID2);  // drain: acc (FIX -> M)
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID3);  // drain: acc (FIX -> M)
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // drain: kMat (MTE1 -> MTE2)
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);  // drain: kMat (MTE1 -> MTE2)
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // drain: left, right (M -> MTE1)
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // drain: left, right (M -> MTE1)
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // drain: acc (FIX -> M)
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // drain: acc (FIX -> M)
    }
}
