// AUTO cluster kernel (a2a3), cube -> vector through an explicit-index FIFO in GM (`TMPipe`,
// GM_FIFO, two entries, no local FIFO) built with EN_UNIT_FLAG: each push stores the accumulator
// with STPhase::Final, so the L0C unit flags order it after the final matmul that wrote it, and
// the next phased matmul after it. The cube core multiplies PANELS row panels of `a` by `b` (two
// phased matmuls per panel: a partial and a final one) and pushes each product; each vector core
// pops its 16-row half, scales it and stores it.
#include "a2a3_sides.hpp"  // the PTO headers; CUBE_SIDE / VEC_SIDE: the core type compiled for

#ifndef PANELS
#define PANELS 3
#endif

extern "C" __global__ AICORE void unit_flag_push(__gm__ float *out, __gm__ half *a, __gm__ half *b,
                                                 __gm__ float *ring)
{
    using Product = TileAcc<float, 32, 32>;
    using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using Fifo = TMPipe<0, FIFOType::GM_FIFO, 2, 2, Product, Half, true, 0>;
    Fifo fifo(ring);
    if constexpr (CUBE_SIDE) {
        using Panel = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
        using GmPanel = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        Panel lhsL1;
        Panel rhsL1;
        TASSIGN(rhsL1, 0x1000);  // L1 2 KiB
        TileLeft<half, 32, 32> lhs;
        TileRight<half, 32, 32> rhs;
        TASSIGN(rhs, 0x0);  // L0B 2 KiB
        Product acc;
        GmPanel gRhs(b);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // prime: lhsL1 free at start (MTE1 -> MTE2)
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);  // prime: lhsL1 free at start (MTE1 -> MTE2)
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // prime: lhs free at start (M -> MTE1)
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // prime: lhs free at start (M -> MTE1)
        TLOAD(rhsL1, gRhs);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);  // RAW rhsL1: MTE2 -> MTE1
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);  // RAW rhsL1: MTE2 -> MTE1
        TMOV(rhs, rhsL1);
        for (int p = 0; p < PANELS; p++) {
            GmPanel gLhs(a + p * 32 * 32);
            TASSIGN(lhsL1, (p % 2) * 0x800);  // L1 2 x 2 KiB, one copy per iteration (multi-buffered)
            TASSIGN(lhs, (p % 2) * 0x800);  // L0A 2 x 2 KiB, one copy per iteration (multi-buffered)
            TASSIGN(acc, (p % 2) * 0x1000);  // L0C 2 x 4 KiB, one copy per iteration (multi-buffered)
            wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(p % 2));  // WAR lhsL1: MTE1 -> MTE2 (next iteration)
            TLOAD(lhsL1, gLhs);
            set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(p % 2));  // RAW lhsL1: MTE2 -> MTE1
            wait_flag(PIPE_M, PIPE_MTE1, (event_t)(p % 2));  // WAR lhs: M -> MTE1 (next iteration)
            wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(p % 2));  // RAW lhsL1: MTE2 -> MTE1
            TMOV(lhs, lhsL1);
            set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(p % 2));  // WAR lhsL1: MTE1 -> MTE2 (next iteration)
            set_flag(PIPE_MTE1, PIPE_M, (event_t)((p % 2) + 2));  // RAW lhs, rhs: MTE1 -> M
            wait_flag(PIPE_MTE1, PIPE_M, (event_t)((p % 2) + 2));  // RAW lhs, rhs: MTE1 -> M
            TMATMUL<AccPhase::Partial>(acc, lhs, rhs);
            TMATMUL_ACC<AccPhase::Final>(acc, lhs, rhs);
            set_flag(PIPE_M, PIPE_MTE1, (event_t)(p % 2));  // WAR lhs: M -> MTE1 (next iteration)
            fifo.prod.setTileId(p, 0);
            TPUSH(acc, fifo);
        }
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // drain: lhsL1 (MTE1 -> MTE2)
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);  // drain: lhsL1 (MTE1 -> MTE2)
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // drain: lhs (M -> MTE1)
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // drain: lhs (M -> MTE1)
    }
    if constexpr (VEC_SIDE) {
        using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        Half popped;
        Half scaled;
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: popped free at start (V -> MTE2)
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: popped free at start (V -> MTE2)
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: scaled free at start (MTE3 -> V)
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: scaled free at start (MTE3 -> V)
        for (int p = 0; p < PANELS; p++) {
            GmHalf gOut(out + (p * 32 + get_subblockid() * 16) * 32);
            TASSIGN(popped, (p % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
            TASSIGN(scaled, 0x1000 + (p % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
            fifo.cons.setTileId(p, 0);
            fifo.cons.setEntryOffset(get_subblockid() * 16 * 32 * sizeof(float));
            wait_flag(PIPE_V, PIPE_MTE2, (event_t)(p % 2));  // WAR popped: V -> MTE2 (next iteration)
            TPOP(popped, fifo);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)(p % 2));  // RAW popped: MTE2 -> V
            wait_flag(PIPE_MTE3, PIPE_V, (event_t)(p % 2));  // WAR scaled: MTE3 -> V (next iteration)
            wait_flag(PIPE_MTE2, PIPE_V, (event_t)(p % 2));  // RAW popped: MTE2 -> V
            TMULS(scaled, popped, 0.5f);
            set_flag(PIPE_V, PIPE_MTE2, (event_t)(p % 2));  // WAR popped: V -> MTE2 (next iteration)
            set_flag(PIPE_V, PIPE_MTE3, (event_t)((p % 2) + 2));  // RAW scaled: V -> MTE3
            wait_flag(PIPE_V, PIPE_MTE3, (event_t)((p % 2) + 2));  // RAW scaled: V -> MTE3
            TSTORE(gOut, scaled);
            set_flag(PIPE_MTE3, PIPE_V, (event_t)(p % 2));  // WAR scaled: MTE3 -> V (next iteration)
        }
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: popped (V -> MTE2)
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: popped (V -> MTE2)
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: scaled (MTE3 -> V)
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: scaled (MTE3 -> V)
    }
}
