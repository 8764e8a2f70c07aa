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
    TLOAD(kMat, gK);
    TEXTRACT(left, q, 0, 0);
    TEXTRACT(right, kMat, 0, 0);
    TMATMUL(acc, left, right);
    TSTORE(gS, acc);
}

AICORE inline void update(int blk, int sub, MatA &pMat, MatB &vMat, Left &left, Right &right, Acc &acc,
                          __gm__ float *o, __gm__ half *p, __gm__ half *v)
{
    GmB gV(v + (blk * 3 + sub) * 512);
    GmA gP(p + (blk * 3 + sub) * 512);
    GmC gO(o + (blk * 3 + sub) * 256);
    TLOAD(vMat, gV);
    TLOAD(pMat, gP);
    TEXTRACT(left, pMat, 0, 0);
    TEXTRACT(right, vMat, 0, 0);
    TMATMUL(acc, left, right);
    TSTORE(gO, acc);
}

extern "C" __global__ AICORE void helper_main_loop_copies(__gm__ float *s, __gm__ float *o, __gm__ half *q,
                                                          __gm__ half *k, __gm__ half *p, __gm__ half *v, int blocks)
{
    MatA qMat;
    Left sLeft[2];
    Right sRight[2];
    Acc sAcc[2];
    Left uLeft[2];
    Right uRight[2];
    Acc uAcc[2];
    {
        GmA gQ(q);
        TLOAD(qMat, gQ);
        MultiBuffered<2> mb;
        mb.loop<Range<3>>([&](auto ctx) {
            MatB kMat;
            score(0, ctx.iter, qMat, kMat, sLeft[ctx.iter % 2], sRight[ctx.iter % 2], sAcc[ctx.iter % 2], s, k);
        });
        MatB kMat;
        MatA pMat;
        MatB vMat;
        MultiStaged<2> stages;
        for (int blk = 0; blk < blocks; ++blk) {
            for (int sub = 0; sub < 3; ++sub) {
                stages.run(
                    [&]() {
                        score(blk + 1, sub, qMat, kMat, sLeft[sub % 2], sRight[sub % 2], sAcc[sub % 2], s, k);
                    },
                    [&]() {
                        update(blk, sub, pMat, vMat, uLeft[sub % 2], uRight[sub % 2], uAcc[sub % 2], o, p, v);
                    });
            }
        }
        mb.loop<Range<3>>([&](auto ctx) {
            MatA pMat;
            MatB vMat;
            update(blocks, ctx.iter, pMat, vMat, uLeft[ctx.iter % 2], uRight[ctx.iter % 2], uAcc[ctx.iter % 2], o, p, v);
        });
    }
}
