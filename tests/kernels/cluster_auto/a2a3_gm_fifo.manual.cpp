// AUTO cluster kernel (a2a3), cube -> vector through a TPipe whose two slots are in GM (`ring`)
// and whose consumer copies each tile into one of two UB slots: the cube core multiplies
// PANELS row panels of `a` by `b` and pushes each product; each vector core pops its 16-row
// half, takes its exponent and stores it.
#include "a2a3_sides.hpp"  // the PTO headers; CUBE_SIDE / VEC_SIDE: the core type compiled for

#ifndef PANELS
#define PANELS 3
#endif

extern "C" __global__ AICORE void gm_fifo(__gm__ float *out, __gm__ half *a, __gm__ half *b, __gm__ float *ring)
{
    using Ring = TPipe<0, Direction::DIR_C2V, 32 * 32 * sizeof(float), 2>;
    Ring pipe((__gm__ void *)ring, 0x0, 0x0);
    if constexpr (CUBE_SIDE) {
        using Panel = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
        using GmPanel = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        Panel lhsL1;
        Panel rhsL1;
        TASSIGN(rhsL1, 0x1000);  // L1 2 KiB
        TileLeft<half, 32, 32> lhs;
        TileRight<half, 32, 32> rhs;
        TASSIGN(rhs, 0x0);  // L0B 2 KiB
        TileAcc<float, 32, 32> acc;
        GmPanel gRhs(b);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // prime: lhsL1 free at start (MTE1 -> MTE2)
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);  // prime: lhsL1 free at start (MTE1 -> MTE2)
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // prime: lhs free at start (M -> MTE1)
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // prime: lhs free at start (M -> MTE1)
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // prime: acc free at start (FIX -> M)
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // prime: acc free at start (FIX -> M)
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
            wait_flag(PIPE_FIX, PIPE_M, (event_t)(p % 2));  // WAR acc: FIX -> M (next iteration)
            wait_flag(PIPE_MTE1, PIPE_M, (event_t)((p % 2) + 2));  // RAW lhs, rhs: MTE1 -> M
            TMATMUL(acc, lhs, rhs);
            set_flag(PIPE_M, PIPE_MTE1, (event_t)(p % 2));  // WAR lhs: M -> MTE1 (next iteration)
            set_flag(PIPE_M, PIPE_FIX, (event_t)((p % 2) + 2));  // RAW acc: M -> FIX
            wait_flag(PIPE_M, PIPE_FIX, (event_t)((p % 2) + 2));  // RAW acc: M -> FIX
            TPUSH<Ring, TileAcc<float, 32, 32>, TileSplitAxis::TILE_UP_DOWN>(pipe, acc);
            set_flag(PIPE_FIX, PIPE_M, (event_t)(p % 2));  // WAR acc: FIX -> M (next iteration)
        }
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // drain: lhsL1 (MTE1 -> MTE2)
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);  // drain: lhsL1 (MTE1 -> MTE2)
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // drain: lhs (M -> MTE1)
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // drain: lhs (M -> MTE1)
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // drain: acc (FIX -> M)
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // drain: acc (FIX -> M)
    }
    if constexpr (VEC_SIDE) {
        using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
        using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        Half popped;
        Half exps;
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: popped free at start (V -> MTE2)
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: popped free at start (V -> MTE2)
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: exps free at start (MTE3 -> V)
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: exps free at start (MTE3 -> V)
        for (int p = 0; p < PANELS; p++) {
            GmHalf gOut(out + (p * 32 + get_subblockid() * 16) * 32);
            TASSIGN(exps, 0x1800 + (p % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
            wait_flag(PIPE_V, PIPE_MTE2, (event_t)(pipe.cons.getTileId() % 2));  // WAR popped: V -> MTE2 (next iteration)
            TPOP<Ring, Half, TileSplitAxis::TILE_UP_DOWN>(pipe, popped);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)((pipe.cons.getTileId() - 1) % 2));  // RAW popped: MTE2 -> V
            wait_flag(PIPE_MTE3, PIPE_V, (event_t)(p % 2));  // WAR exps: MTE3 -> V (next iteration)
            wait_flag(PIPE_MTE2, PIPE_V, (event_t)((pipe.cons.getTileId() - 1) % 2));  // RAW popped: MTE2 -> V
            TEXP(exps, popped);
            set_flag(PIPE_V, PIPE_MTE2, (event_t)((pipe.cons.getTileId() - 1) % 2));  // WAR popped: V -> MTE2 (next iteration)
            set_flag(PIPE_V, PIPE_MTE3, (event_t)((p % 2) + 2));  // RAW exps: V -> MTE3
            TFREE<Ring, TileSplitAxis::TILE_UP_DOWN>(pipe);
            wait_flag(PIPE_V, PIPE_MTE3, (event_t)((p % 2) + 2));  // RAW exps: V -> MTE3
            TSTORE(gOut, exps);
            set_flag(PIPE_MTE3, PIPE_V, (event_t)(p % 2));  // WAR exps: MTE3 -> V (next iteration)
        }
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: popped (V -> MTE2)
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: popped (V -> MTE2)
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: exps (MTE3 -> V)
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: exps (MTE3 -> V)
    }
}
