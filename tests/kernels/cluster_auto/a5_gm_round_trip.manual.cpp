// AUTO cluster kernel (a5), cube -> vector -> cube through two GM workspaces of two slots each,
// each guarded by a flag pair (TSync_Custom): the cube core stores each score product into
// `scores`; each vector core loads its half, takes its exponent, converts it to half and stores
// it into `probs`; the cube core loads the whole tile back, multiplies it and stores the result.
// The vector core's next load waits for the cube's next product, not for its own last store:
// the two workspaces are apart, and its flags order only what the cube does.
#include <pto/pto-inst.hpp>
#include <pto/npu/a5/custom/TSync_Custom.hpp>

using namespace pto;

#ifndef ROUNDS
#define ROUNDS 4
#endif
constexpr int HALF_ELEMS = 16 * 32;
constexpr int SLOT_ELEMS = 32 * 32;

extern "C" __global__ AICORE void gm_round_trip(__gm__ float *out, __gm__ float *scores, __gm__ half *probs,
                                                __gm__ half *a, __gm__ half *b)
{
    constexpr TSync_Custom<SyncOpType::TSTORE_C2GM, SyncOpType::TLOAD> scored = {2};
    constexpr TSync_Custom<SyncOpType::TSTORE_V2GM, SyncOpType::TLOAD> weighed = {4};
#if defined(__DAV_CUBE__)
    using Operand = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using GmOperand = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmProduct = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    Operand lhsL1;
    TASSIGN(lhsL1, 0x0);  // L1 2 KiB
    Operand rhsL1;
    TASSIGN(rhsL1, 0x800);  // L1 2 KiB
    Operand probsL1;
    TASSIGN(probsL1, 0x1000);  // L1 2 KiB
    TileLeft<half, 32, 32> lhs;
    TASSIGN(lhs, 0x0);  // L0A 2 KiB
    TileRight<half, 32, 32> rhs;
    TASSIGN(rhs, 0x0);  // L0B 2 KiB
    TileLeft<half, 32, 32> weights;
    TASSIGN(weights, 0x800);  // L0A 2 KiB
    TileAcc<float, 32, 32> acc;
    TASSIGN(acc, 0x0);  // L0C 4 KiB
    TileAcc<float, 32, 32> result;
    TASSIGN(result, 0x1000);  // L0C 4 KiB
    GmOperand gA(a);
    GmOperand gB(b);
    TLOAD(lhsL1, gA);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // RAW lhsL1: MTE2 -> MTE1
    TLOAD(rhsL1, gB);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);  // RAW rhsL1: MTE2 -> MTE1
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // RAW lhsL1: MTE2 -> MTE1
    TMOV(lhs, lhsL1);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);  // RAW rhsL1: MTE2 -> MTE1
    TMOV(rhs, rhsL1);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID1);  // RAW lhs, rhs: MTE1 -> M
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID1);  // RAW lhs, rhs: MTE1 -> M
    set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // prime: acc free at start (FIX -> M)
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // prime: probsL1 free at start (MTE1 -> MTE2)
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // prime: weights free at start (M -> MTE1)
    set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // prime: result free at start (FIX -> M)
    for (int r = 0; r < ROUNDS; ++r) {
        GmProduct gScores(scores + (r % 2) * SLOT_ELEMS);
        GmOperand gProbs(probs + (r % 2) * SLOT_ELEMS);
        GmProduct gOut(out + r * SLOT_ELEMS);
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // WAR acc: FIX -> M (next iteration)
        TMATMUL(acc, lhs, rhs);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID1);  // RAW acc: M -> FIX
        if (r >= 2) {
            scored.allocate();  // both vector cores have read this slot's last scores
            set_flag(PIPE_FIX, PIPE_MTE2, EVENT_ID2);  // RAW gProbs: FIX -> MTE2
        }
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID1);  // RAW acc: M -> FIX
        TSTORE(gScores, acc);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // WAR acc: FIX -> M (next iteration)
        scored.record();
        weighed.wait();  // both vector cores have stored this round's weights
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // WAR probsL1: MTE1 -> MTE2 (next iteration)
        if (r >= 2) wait_flag(PIPE_FIX, PIPE_MTE2, EVENT_ID2);  // RAW gProbs: FIX -> MTE2
        TLOAD(probsL1, gProbs);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // RAW/WAR/WAW probs (both core types access it), probsL1: MTE2 -> MTE1
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // RAW/WAR/WAW probs (both core types access it), probsL1: MTE2 -> MTE1
        weighed.free();
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // WAR weights: M -> MTE1 (next iteration)
        TMOV(weights, probsL1);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // WAR probsL1: MTE1 -> MTE2 (next iteration)
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID1);  // RAW weights: MTE1 -> M
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // WAR result: FIX -> M (next iteration)
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID1);  // RAW weights: MTE1 -> M
        TMATMUL(result, weights, rhs);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // WAR weights: M -> MTE1 (next iteration)
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID2);  // RAW result: M -> FIX
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID2);  // RAW result: M -> FIX
        TSTORE(gOut, result);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // WAR result: FIX -> M (next iteration)
    }
    wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // drain: acc (FIX -> M)
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);  // drain: probsL1 (MTE1 -> MTE2)
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);  // drain: weights (M -> MTE1)
    wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1);  // drain: result (FIX -> M)
    scored.allocate();
    scored.allocate();
#endif
#if defined(__DAV_VEC__)
    using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using HalfH = Tile<TileType::Vec, half, 16, 32, BLayout::RowMajor, 16, 32>;
    using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmHalfH = GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    Half part;
    Half exps;
    TASSIGN(exps, 0x1000);  // UB 2 KiB
    HalfH weight;
    int sub = get_subblockid();
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // prime: gPart, probs (both core types access it) free at start (MTE3 -> MTE2)
    for (int r = 0; r < ROUNDS; ++r) {
        GmHalf gPart(scores + (r % 2) * SLOT_ELEMS + sub * HALF_ELEMS);
        GmHalfH gWeight(probs + (r % 2) * SLOT_ELEMS + sub * HALF_ELEMS);
        TASSIGN(part, (r % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        TASSIGN(weight, 0x1800 + (r % 2) * 0x400);  // UB 2 x 1 KiB, one copy per iteration (multi-buffered)
        scored.wait();
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // RAW/WAW gPart, probs (both core types access it): MTE3 -> MTE2 (next iteration)
        TLOAD(part, gPart);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)(r % 2));  // RAW part: MTE2 -> V
        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID2);  // gPart consumed: MTE2 -> MTE3 (flag reuse)
        scored.free();
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(r % 2));  // RAW part: MTE2 -> V
        TEXP(exps, part);
        TCVT(weight, exps, RoundMode::CAST_ROUND);
        set_flag(PIPE_V, PIPE_MTE3, (event_t)(r % 2));  // RAW weight: V -> MTE3
        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID2);  // gPart consumed: MTE2 -> MTE3 (flag reuse)
        if (r >= 2) {
            weighed.allocate();  // the cube core has read this slot's last weights
        }
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // RAW/WAW gPart, probs (both core types access it): MTE3 -> MTE2 (next iteration)
        wait_flag(PIPE_V, PIPE_MTE3, (event_t)(r % 2));  // RAW weight: V -> MTE3
        TSTORE(gWeight, weight);
        weighed.record();
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // drain: gPart, probs (both core types access it) (MTE3 -> MTE2)
    weighed.allocate();
    weighed.allocate();
#endif
}
