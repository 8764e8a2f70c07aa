// AUTO cluster kernel (a2a3) with two TPipe rings through GM, one each way: the cube core
// multiplies PANELS row panels of `a` by `b` and pushes each product through `sRing`; each vector
// core pops its 16-row half, takes its exponent, converts it to half and pushes it back through
// `pRing`; the cube core pops the gathered panel into L1, multiplies it by `b` again and stores the
// product. Each ring's flags hand over that ring's slots only: the cube core's pop of a panel
// from `pRing` (MTE2) does not wait for its own push of the next product into `sRing` (FIX).
#include "a2a3_sides.hpp"  // the PTO headers; CUBE_SIDE / VEC_SIDE: the core type compiled for

#ifndef PANELS
#define PANELS 3
#endif

extern "C" __global__ AICORE void two_rings(__gm__ float *out, __gm__ half *a, __gm__ half *b, __gm__ float *sRing,
                                            __gm__ half *pRing)
{
    using SRing = TPipe<0, Direction::DIR_C2V, 32 * 32 * sizeof(float), 2>;
    using PRing = TPipe<2, Direction::DIR_V2C, 32 * 32 * sizeof(half), 2>;
    SRing sPipe((__gm__ void *)sRing, 0x0, 0x0);
    PRing pPipe((__gm__ void *)pRing, 0x0, 0x40000);
    if constexpr (CUBE_SIDE) {
        using Panel = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
        using GmPanel = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        using GmOut = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        Panel lhsL1;
        Panel rhsL1;
        TASSIGN(rhsL1, 0x1000);  // L1 2 KiB
        Panel probs;
        TileLeft<half, 32, 32> lhs;
        TileRight<half, 32, 32> rhs;
        TASSIGN(rhs, 0x0);  // L0B 2 KiB
        TileAcc<float, 32, 32> acc;
        TileAcc<float, 32, 32> res;
        GmPanel gRhs(b);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // prime: lhsL1 free at start (MTE1 -> MTE2)
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);  // prime: lhsL1 free at start (MTE1 -> MTE2)
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // prime: acc free at start (FIX -> M)
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // prime: acc free at start (FIX -> M)
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);  // prime: probs free at start (MTE1 -> MTE2)
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);  // prime: probs free at start (MTE1 -> MTE2)
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID2);  // prime: res free at start (FIX -> M)
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID3);  // prime: res free at start (FIX -> M)
        TLOAD(rhsL1, gRhs);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID4);  // RAW rhsL1: MTE2 -> MTE1
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID4);  // RAW rhsL1: MTE2 -> MTE1
        TMOV(rhs, rhsL1);
        for (int p = 0; p < PANELS; p++) {
            GmPanel gLhs(a + p * 32 * 32);
            TASSIGN(lhsL1, (p % 2) * 0x800);  // L1 2 x 2 KiB, one copy per iteration (multi-buffered)
            TASSIGN(lhs, (p % 2) * 0x800);  // L0A 2 x 2 KiB, one copy per iteration (multi-buffered)
            TASSIGN(acc, (p % 2) * 0x1000);  // L0C 2 x 4 KiB, one copy per iteration (multi-buffered)
            TASSIGN(res, 0x2000 + (p % 2) * 0x1000);  // L0C 2 x 4 KiB, one copy per iteration (multi-buffered)
            wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(p % 2));  // WAR lhsL1: MTE1 -> MTE2 (next iteration)
            TLOAD(lhsL1, gLhs);
            set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(p % 2));  // RAW lhsL1: MTE2 -> MTE1
            wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(p % 2));  // RAW lhsL1: MTE2 -> MTE1
            TMOV(lhs, lhsL1);
            set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(p % 2));  // WAR lhsL1: MTE1 -> MTE2 (next iteration)
            set_flag(PIPE_MTE1, PIPE_M, (event_t)((p % 2) + 4));  // RAW lhs, rhs: MTE1 -> M
            wait_flag(PIPE_FIX, PIPE_M, (event_t)(p % 2));  // WAR acc: FIX -> M (next iteration)
            wait_flag(PIPE_MTE1, PIPE_M, (event_t)((p % 2) + 4));  // RAW lhs, rhs: MTE1 -> M
            TMATMUL(acc, lhs, rhs);
            set_flag(PIPE_M, PIPE_FIX, (event_t)(p % 2));  // RAW acc: M -> FIX
            set_flag(PIPE_M, PIPE_MTE1, (event_t)((p % 2) + 2));  // WAR lhs: M -> MTE1
            wait_flag(PIPE_M, PIPE_FIX, (event_t)(p % 2));  // RAW acc: M -> FIX
            TPUSH<SRing, TileAcc<float, 32, 32>, TileSplitAxis::TILE_UP_DOWN>(sPipe, acc);
            set_flag(PIPE_FIX, PIPE_M, (event_t)(p % 2));  // WAR acc: FIX -> M (next iteration)
            wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)((pPipe.cons.getTileId() % 2) + 2));  // WAR probs: MTE1 -> MTE2 (next iteration)
            TPOP<PRing, Panel, TileSplitAxis::TILE_UP_DOWN>(pPipe, probs);
            set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(((pPipe.cons.getTileId() - 1) % 2) + 2));  // RAW probs: MTE2 -> MTE1
            wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(((pPipe.cons.getTileId() - 1) % 2) + 2));  // RAW probs: MTE2 -> MTE1
            wait_flag(PIPE_M, PIPE_MTE1, (event_t)((p % 2) + 2));  // WAR lhs: M -> MTE1
            TMOV(lhs, probs);
            set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(((pPipe.cons.getTileId() - 1) % 2) + 2));  // WAR probs: MTE1 -> MTE2 (next iteration)
            set_flag(PIPE_MTE1, PIPE_M, (event_t)((p % 2) + 4));  // RAW lhs: MTE1 -> M
            wait_flag(PIPE_FIX, PIPE_M, (event_t)((p % 2) + 2));  // WAR res: FIX -> M (next iteration)
            wait_flag(PIPE_MTE1, PIPE_M, (event_t)((p % 2) + 4));  // RAW lhs: MTE1 -> M
            TMATMUL(res, lhs, rhs);
            set_flag(PIPE_M, PIPE_FIX, (event_t)((p % 2) + 4));  // RAW res: M -> FIX
            GmOut gOut(out + p * 32 * 32);
            wait_flag(PIPE_M, PIPE_FIX, (event_t)((p % 2) + 4));  // RAW res: M -> FIX
            TSTORE(gOut, res);
            set_flag(PIPE_FIX, PIPE_M, (event_t)((p % 2) + 2));  // WAR res: FIX -> M (next iteration)
        }
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // drain: lhsL1 (MTE1 -> MTE2)
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);  // drain: lhsL1 (MTE1 -> MTE2)
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // drain: acc (FIX -> M)
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // drain: acc (FIX -> M)
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);  // drain: probs (MTE1 -> MTE2)
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);  // drain: probs (MTE1 -> MTE2)
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID2);  // drain: res (FIX -> M)
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID3);  // drain: res (FIX -> M)
    }
    if constexpr (VEC_SIDE) {
        using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
        using HalfH = Tile<TileType::Vec, half, 16, 32, BLayout::RowMajor, 16, 32>;
        Half popped;
        Half exps;
        TASSIGN(exps, 0x1800);  // UB 2 KiB
        HalfH probs;
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: popped free at start (V -> MTE2)
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: popped free at start (V -> MTE2)
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: probs free at start (MTE3 -> V)
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: probs free at start (MTE3 -> V)
        for (int p = 0; p < PANELS; p++) {
            TASSIGN(probs, 0x2000 + (p % 2) * 0x400);  // UB 2 x 1 KiB, one copy per iteration (multi-buffered)
            wait_flag(PIPE_V, PIPE_MTE2, (event_t)(sPipe.cons.getTileId() % 2));  // WAR popped: V -> MTE2 (next iteration)
            TPOP<SRing, Half, TileSplitAxis::TILE_UP_DOWN>(sPipe, popped);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)((sPipe.cons.getTileId() - 1) % 2));  // RAW popped: MTE2 -> V
            wait_flag(PIPE_MTE2, PIPE_V, (event_t)((sPipe.cons.getTileId() - 1) % 2));  // RAW popped: MTE2 -> V
            pipe_barrier(PIPE_V);  // WAR exps: TCVT -> TEXP on PIPE_V
            TEXP(exps, popped);
            set_flag(PIPE_V, PIPE_MTE2, (event_t)((sPipe.cons.getTileId() - 1) % 2));  // WAR popped: V -> MTE2 (next iteration)
            wait_flag(PIPE_MTE3, PIPE_V, (event_t)(p % 2));  // WAR probs: MTE3 -> V (next iteration)
            pipe_barrier(PIPE_V);  // RAW exps: TEXP -> TCVT on PIPE_V
            TCVT(probs, exps, RoundMode::CAST_RINT);
            set_flag(PIPE_V, PIPE_MTE3, (event_t)((p % 2) + 2));  // RAW probs: V -> MTE3
            wait_flag(PIPE_V, PIPE_MTE3, (event_t)((p % 2) + 2));  // RAW probs: V -> MTE3
            TPUSH<PRing, HalfH, TileSplitAxis::TILE_UP_DOWN>(pPipe, probs);
            set_flag(PIPE_MTE3, PIPE_V, (event_t)(p % 2));  // WAR probs: MTE3 -> V (next iteration)
        }
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: popped (V -> MTE2)
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: popped (V -> MTE2)
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: probs (MTE3 -> V)
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: probs (MTE3 -> V)
    }
}
