// AUTO cluster kernel (a2a3): the cube core pushes PANELS products through a two-slot TPipe in GM
// (`ring`); each vector core folds them into a running sum with the helper `fold_pop`, called from
// two loops: for panel 0 it copies the popped half into the sum, for every later one it rescales
// the sum and adds the panel (`fold`), the last time also scaling the result (`fold_last`). The
// second loop's call never takes the panel-0 branch, so the lines the first call needs there are
// written once for both and never run in the second.
#include "a2a3_sides.hpp"  // the PTO headers; CUBE_SIDE / VEC_SIDE: the core type compiled for

#ifndef PANELS
#define PANELS 5
#endif

using Ring = TPipe<0, Direction::DIR_C2V, 32 * 32 * sizeof(float), 2>;
using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;

AICORE inline void fold(Half &sum, Half &part)
{
    TMULS(sum, sum, 0.5f);
    pipe_barrier(PIPE_V);  // RAW sum: TMULS -> TADD on PIPE_V
    TADD(sum, sum, part);
}

AICORE inline void fold_last(Half &sum, Half &part)
{
    TMULS(sum, sum, 0.5f);
    pipe_barrier(PIPE_V);  // RAW sum: TMULS -> TADD on PIPE_V
    TADD(sum, sum, part);
    pipe_barrier(PIPE_V);  // RAW sum: TADD -> TMULS on PIPE_V
    TMULS(sum, sum, 0.25f);
}

AICORE inline void fold_pop(Ring &pipe, int p, int last, Half &sum, Half &part)
{
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR part: V -> MTE2 (next iteration)
    if (p == 0) {
        TPOP<Ring, Half, TileSplitAxis::TILE_UP_DOWN>(pipe, part);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW part: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW part: MTE2 -> V
        TMULS(sum, part, 1.0f);  // the sum in a buffer of its own: a popped tile lives in the pipe's slot
    } else {
        TPOP<Ring, Half, TileSplitAxis::TILE_UP_DOWN>(pipe, part);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW part: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW part: MTE2 -> V
        if (p < last) {
            fold(sum, part);
        } else {
            fold_last(sum, part);
        }
    }
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR part: V -> MTE2 (next iteration)
    TFREE<Ring, TileSplitAxis::TILE_UP_DOWN>(pipe);
}

extern "C" __global__ AICORE void first_pop_in_helper(__gm__ float *out, __gm__ half *a, __gm__ half *b, __gm__ float *ring)
{
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
        using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        Half sum;
        TASSIGN(sum, 0x1800);  // UB 2 KiB
        Half part;
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: part free at start (V -> MTE2)
        for (int p = 0; p < 3; p++) {
            fold_pop(pipe, p, PANELS - 1, sum, part);
        }
        for (int p = 3; p < PANELS; p++) {
            fold_pop(pipe, p, PANELS - 1, sum, part);
        }
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW sum: V -> MTE3
        GmHalf gOut(out + get_subblockid() * 16 * 32);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);  // RAW sum: V -> MTE3
        TSTORE(gOut, sum);
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: part (V -> MTE2)
    }
}
