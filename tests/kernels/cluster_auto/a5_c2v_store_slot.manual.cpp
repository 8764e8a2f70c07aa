// AUTO cluster kernel (a5): each vector core stores the halves it pops straight from their UB
// slots.
// The pop's wait stalls PIPE_V only and the store runs on MTE3, so the store must wait for the
// pop; the free (on V) must wait for the store to have read the slot.
#include <pto/pto-inst.hpp>
#include <pto/common/fifo.hpp>

using namespace pto;

extern "C" __global__ AICORE void store_slot(__gm__ float *out, __gm__ half *a, __gm__ half *b)
{
    using Acc = TileAcc<float, 32, 32>;
    using Part = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using Ring = TPipe<8, Direction::DIR_C2V, 16 * 32 * sizeof(float), 2>;
    Ring ring((__gm__ void *)nullptr, 0x4000, 0x0);
#if defined(__DAV_CUBE__)
    using Operand = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using GmOperand = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    Operand lhsL1;
    TASSIGN(lhsL1, 0x0);  // L1 2 KiB
    Operand rhsL1;
    TASSIGN(rhsL1, 0x800);  // L1 2 KiB
    TileLeft<half, 32, 32> lhs;
    TASSIGN(lhs, 0x0);  // L0A 2 KiB
    TileRight<half, 32, 32> rhs;
    TASSIGN(rhs, 0x0);  // L0B 2 KiB
    Acc acc;
    TASSIGN(acc, 0x0);  // L0C 4 KiB
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
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  // RAW lhs, rhs: MTE1 -> M
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  // RAW lhs, rhs: MTE1 -> M
    set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // prime: acc free at start (FIX -> M)
    for (int t = 0; t < 2; ++t) {
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // WAR acc: FIX -> M (next iteration)
        TMATMUL(acc, lhs, rhs);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);  // RAW acc: M -> FIX
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);  // RAW acc: M -> FIX
        TPUSH<Ring, Acc, TileSplitAxis::TILE_UP_DOWN>(ring, acc);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // WAR acc: FIX -> M (next iteration)
    }
    wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);  // drain: acc (FIX -> M)
#endif
#if defined(__DAV_VEC__)
    using GmPart = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    Part received;
    for (int t = 0; t < 2; ++t) {
        GmPart gOut(out + (t * 2 + get_subblockid()) * 16 * 32);
        TPOP<Ring, Part, TileSplitAxis::TILE_UP_DOWN>(ring, received);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW received: V -> MTE3
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW received: V -> MTE3
        TSTORE(gOut, received);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR the FIFO slots of received: MTE3 -> V
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR the FIFO slots of received: MTE3 -> V
        TFREE<Ring, TileSplitAxis::TILE_UP_DOWN>(ring);
    }
#endif
}
