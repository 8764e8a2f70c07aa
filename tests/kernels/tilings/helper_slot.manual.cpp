// Hand-written twin of helper_slot.cpp: per-slot L0 flags inside the helper.
// A GEMM K loop whose step is a helper: the L0 ping-pong index `pp` reaches the helper as its
// parameter, and the helper indexes the L0 operands with it. Written inline, the same loop takes
// 21,024 cycles on the timing model.
#include <pto/pto-inst.hpp>
using namespace pto;
using MatA = Tile<TileType::Mat, half, 128, 256, BLayout::ColMajor, 128, 256, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, half, 256, 256, BLayout::RowMajor, 256, 256, SLayout::ColMajor>;
using LeftT = TileLeft<half, 128, 64, 128, 64>;
using RightT = TileRight<half, 64, 256, 64, 256>;
using AccT = TileAcc<float, 128, 256, 128, 256>;
using GmA = GlobalTensor<half, TileShape2D<half, 128, 256, Layout::ND>, BaseShape2D<half, 128, 256, Layout::ND>, Layout::ND>;
using GmB = GlobalTensor<half, TileShape2D<half, 256, 256, Layout::DN>, BaseShape2D<half, 256, 256, Layout::DN>, Layout::DN>;
using GmC = GlobalTensor<float, TileShape2D<float, 128, 256, Layout::ND>, BaseShape2D<float, 128, 256, Layout::ND>, Layout::ND>;

AICORE inline void KStep(uint32_t k, MatA &a, MatB &b, LeftT l[2], RightT r[2], AccT &acc, uint8_t pp)
{
    wait_flag(PIPE_M, PIPE_MTE1, (event_t)pp);
    TEXTRACT(l[pp], a, 0, (k % 4) * 64);
    TEXTRACT(r[pp], b, (k % 4) * 64, 0);
    set_flag(PIPE_MTE1, PIPE_M, (event_t)pp);
    wait_flag(PIPE_MTE1, PIPE_M, (event_t)pp);
    if (k == 0) {
        TMATMUL(acc, l[pp], r[pp]);
    } else {
        TMATMUL_ACC(acc, acc, l[pp], r[pp]);
    }
    set_flag(PIPE_M, PIPE_MTE1, (event_t)pp);
}

extern "C" __global__ AICORE void helper_slot(__gm__ float *c, __gm__ half *x, __gm__ half *y)
{
    MatA a;
    MatB b;
    LeftT l[2];
    RightT r[2];
    AccT acc;
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x10000);
    TASSIGN(l[0], 0x0);
    TASSIGN(l[1], 0x4000);
    TASSIGN(r[0], 0x0);
    TASSIGN(r[1], 0x8000);
    TASSIGN(acc, 0x0);
    GmA ga(x);
    GmB gb(y);
    TLOAD(a, ga);
    TLOAD(b, gb);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
    uint8_t pp = 0;
    for (uint32_t k = 0; k < 32; k++) {
        KStep(k, a, b, l, r, acc, pp);
        pp = 1 - pp;
    }
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    GmC gc(c);
    TSTORE(gc, acc);
}
