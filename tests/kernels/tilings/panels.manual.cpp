// Hand-written twin of panels.cpp: tiles placed by hand, the L1 panel slots released after the
// last step that reads them, panel loads waited for only in the step after a load, the L0
// ping-pong flags per slot. The load flags are per panel slot too: with one id, the load of
// panel p + 1 could set it again before the wait of panel p consumed it.
// One 128 x 256 output tile of a half -> float GEMM, K = 16 steps of 64. The L1 panels hold four
// K steps each: every fourth step loads the next panel into slot `ld` and flips it, and every
// step reads the panel through `cur`, the slot the last load filled (two spellings of one slot).
// The L0 operands ping-pong on the caller's `pp`, which the step helper receives as `slot`.
#include <pto/pto-inst.hpp>
using namespace pto;
constexpr uint32_t STEPS = 16;
constexpr uint32_t PANEL = 4;
using PanelA = Tile<TileType::Mat, half, 128, 256, BLayout::ColMajor, 128, 256, SLayout::RowMajor>;
using PanelB = Tile<TileType::Mat, half, 256, 256, BLayout::RowMajor, 256, 256, SLayout::ColMajor>;
using LeftT = TileLeft<half, 128, 64, 128, 64>;
using RightT = TileRight<half, 64, 256, 64, 256>;
using AccT = TileAcc<float, 128, 256, 128, 256>;
using GmA = GlobalTensor<half, TileShape2D<half, 128, 256, Layout::ND>, BaseShape2D<half, 128, STEPS * 64, Layout::ND>, Layout::ND>;
using GmB = GlobalTensor<half, TileShape2D<half, 256, 256, Layout::DN>, BaseShape2D<half, STEPS * 64, 256, Layout::DN>, Layout::DN>;
using GmC = GlobalTensor<float, TileShape2D<float, 128, 256, Layout::ND>, BaseShape2D<float, 128, 256, Layout::ND>, Layout::ND>;

AICORE inline void Multiply(AccT &acc, LeftT &l, RightT &r, uint32_t step)
{
    if (step == 0) {
        TMATMUL(acc, l, r);
    } else {
        TMATMUL_ACC(acc, acc, l, r);
    }
}

AICORE inline void Step(uint32_t step, __gm__ half *a, __gm__ half *b, PanelA pa[2], PanelB pb[2], LeftT l[2],
                        RightT r[2], AccT &acc, uint8_t &ld, uint8_t slot)
{
    if (step % PANEL == 0) {
        GmA ga(a + step * 64);
        GmB gb(b + step * 64);
        wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)ld);  // panel slot free
        TLOAD(pa[ld], ga);
        set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)ld);  // A panel loaded, per slot
        TLOAD(pb[ld], gb);
        set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(ld + 2));  // B panel loaded, per slot
        ld = 1 - ld;
    }
    const uint8_t cur = 1 - ld;
    wait_flag(PIPE_M, PIPE_MTE1, (event_t)slot);  // L0 slot free
    if (step % PANEL == 0)
        wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)cur);
    TEXTRACT(l[slot], pa[cur], 0, (step % PANEL) * 64);
    if (step % PANEL == 0)
        wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(cur + 2));
    TEXTRACT(r[slot], pb[cur], (step % PANEL) * 64, 0);
    if ((step + 1) % PANEL == 0)
        set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)cur);  // last read of this panel slot
    set_flag(PIPE_MTE1, PIPE_M, (event_t)slot);
    wait_flag(PIPE_MTE1, PIPE_M, (event_t)slot);
    Multiply(acc, l[slot], r[slot], step);
    set_flag(PIPE_M, PIPE_MTE1, (event_t)slot);
}

extern "C" __global__ AICORE void panels(__gm__ float *c, __gm__ half *a, __gm__ half *b)
{
    PanelA pa[2];
    PanelB pb[2];
    LeftT l[2];
    RightT r[2];
    AccT acc;
    TASSIGN(pa[0], 0x0);
    TASSIGN(pa[1], 0x10000);
    TASSIGN(pb[0], 0x20000);
    TASSIGN(pb[1], 0x40000);
    TASSIGN(l[0], 0x0);
    TASSIGN(l[1], 0x4000);
    TASSIGN(r[0], 0x0);
    TASSIGN(r[1], 0x8000);
    TASSIGN(acc, 0x0);
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
    uint8_t ld = 0;
    uint8_t pp = 0;
    for (uint32_t step = 0; step < STEPS; step++) {
        Step(step, a, b, pa, pb, l, r, acc, ld, pp);
        pp = 1 - pp;
    }
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    GmC gc(c);
    TSTORE(gc, acc);
}
