// AUTO cluster kernel (a5), cube -> vector through a GM workspace guarded by a flag pair
// (TSync_Custom, semaphores 2 "written" and 3 "read"): the cube core computes ROUNDS products
// into `ws`, waiting before each overwrite until both vector cores have read the last one;
// each vector core reads its half of each product, negates it and stores it.
#include <pto/pto-inst.hpp>
#include <pto/npu/a5/custom/TSync_Custom.hpp>

using namespace pto;

constexpr int ROUNDS = 3;
constexpr int HALF_ELEMS = 16 * 32;

extern "C" __global__ AICORE void gm_handoff(__gm__ float *out, __gm__ float *ws, __gm__ half *a,
                                             __gm__ half *b)
{
    constexpr TSync_Custom<SyncOpType::TSTORE_C2GM, SyncOpType::TLOAD> product = {2};
#if defined(__DAV_CUBE__)
    using Operand = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using GmOperand = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmWork = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    Operand lhsL1;
    TASSIGN(lhsL1, 0x0);  // L1 2 KiB
    Operand rhsL1;
    TASSIGN(rhsL1, 0x800);  // L1 2 KiB
    TileLeft<half, 32, 32> lhs;
    TASSIGN(lhs, 0x0);  // L0A 2 KiB
    TileRight<half, 32, 32> rhs;
    TASSIGN(rhs, 0x0);  // L0B 2 KiB
    TileAcc<float, 32, 32> acc;
    TASSIGN(acc, 0x0);  // L0C 4 KiB
    GmOperand gA(a);
    GmOperand gB(b);
    GmWork gWork(ws);
    TLOAD(lhsL1, gA);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // RAW lhsL1: MTE2 -> MTE1
    TLOAD(rhsL1, gB);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);  // RAW rhsL1: MTE2 -> MTE1
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // RAW lhsL1: MTE2 -> MTE1
    TMOV(lhs, lhsL1);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);  // RAW rhsL1: MTE2 -> MTE1
    TMOV(rhs, rhsL1);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  // RAW lhs, rhs: MTE1 -> M
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  // RAW lhs, rhs: MTE1 -> M
    set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // prime: acc free at start (FIX -> M)
    for (int r = 0; r < ROUNDS; ++r) {
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // WAR acc: FIX -> M (next iteration)
        TMATMUL(acc, lhs, rhs);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);  // RAW acc: M -> FIX
        if (r > 0) {
            product.allocate();  // both vector cores have read the previous product
        }
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);  // RAW acc: M -> FIX
        TSTORE(gWork, acc);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // WAR acc: FIX -> M (next iteration)
        product.record();
    }
    wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // drain: acc (FIX -> M)
    product.allocate();  // the last product has been read
#endif
#if defined(__DAV_VEC__)
    using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    Half part;
    Half negated;
    int sub = get_subblockid();
    GmHalf gPart(ws + sub * HALF_ELEMS);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: part free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: part free at start (V -> MTE2)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: negated free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: negated free at start (MTE3 -> V)
    for (int r = 0; r < ROUNDS; ++r) {
        GmHalf gOut(out + (r * 2 + sub) * HALF_ELEMS);
        TASSIGN(part, (r % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        TASSIGN(negated, 0x1000 + (r % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        product.wait();
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)(r % 2));  // WAR part: V -> MTE2 (next iteration)
        TLOAD(part, gPart);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)(r % 2));  // RAW part: MTE2 -> V
        product.free();
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)(r % 2));  // WAR negated: MTE3 -> V (next iteration)
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(r % 2));  // RAW part: MTE2 -> V
        TMULS(negated, part, -1.0f);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)(r % 2));  // WAR part: V -> MTE2 (next iteration)
        set_flag(PIPE_V, PIPE_MTE3, (event_t)((r % 2) + 2));  // RAW negated: V -> MTE3
        wait_flag(PIPE_V, PIPE_MTE3, (event_t)((r % 2) + 2));  // RAW negated: V -> MTE3
        TSTORE(gOut, negated);
        set_flag(PIPE_MTE3, PIPE_V, (event_t)(r % 2));  // WAR negated: MTE3 -> V (next iteration)
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: part (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: part (V -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: negated (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: negated (MTE3 -> V)
#endif
}
