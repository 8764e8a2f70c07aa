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
    Operand rhsL1;
    Operand probsL1;
    TileLeft<half, 32, 32> lhs;
    TileRight<half, 32, 32> rhs;
    TileLeft<half, 32, 32> weights;
    TileAcc<float, 32, 32> acc;
    TileAcc<float, 32, 32> result;
    GmOperand gA(a);
    GmOperand gB(b);
    TLOAD(lhsL1, gA);
    TLOAD(rhsL1, gB);
    TMOV(lhs, lhsL1);
    TMOV(rhs, rhsL1);
    for (int r = 0; r < ROUNDS; ++r) {
        GmProduct gScores(scores + (r % 2) * SLOT_ELEMS);
        GmOperand gProbs(probs + (r % 2) * SLOT_ELEMS);
        GmProduct gOut(out + r * SLOT_ELEMS);
        TMATMUL(acc, lhs, rhs);
        if (r >= 2) {
            scored.allocate();  // both vector cores have read this slot's last scores
        }
        TSTORE(gScores, acc);
        scored.record();
        weighed.wait();  // both vector cores have stored this round's weights
        TLOAD(probsL1, gProbs);
        weighed.free();
        TMOV(weights, probsL1);
        TMATMUL(result, weights, rhs);
        TSTORE(gOut, result);
    }
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
    HalfH weight;
    int sub = get_subblockid();
    for (int r = 0; r < ROUNDS; ++r) {
        GmHalf gPart(scores + (r % 2) * SLOT_ELEMS + sub * HALF_ELEMS);
        GmHalfH gWeight(probs + (r % 2) * SLOT_ELEMS + sub * HALF_ELEMS);
        scored.wait();
        TLOAD(part, gPart);
        scored.free();
        TEXP(exps, part);
        TCVT(weight, exps, RoundMode::CAST_ROUND);
        if (r >= 2) {
            weighed.allocate();  // the cube core has read this slot's last weights
        }
        TSTORE(gWeight, weight);
        weighed.record();
    }
    weighed.allocate();
    weighed.allocate();
#endif
}
