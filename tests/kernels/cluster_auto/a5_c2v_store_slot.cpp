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
    Operand rhsL1;
    TileLeft<half, 32, 32> lhs;
    TileRight<half, 32, 32> rhs;
    Acc acc;
    GmOperand gA(a);
    GmOperand gB(b);
    TLOAD(lhsL1, gA);
    TLOAD(rhsL1, gB);
    TMOV(lhs, lhsL1);
    TMOV(rhs, rhsL1);
    for (int t = 0; t < 2; ++t) {
        TMATMUL(acc, lhs, rhs);
        TPUSH<Ring, Acc, TileSplitAxis::TILE_UP_DOWN>(ring, acc);
    }
#endif
#if defined(__DAV_VEC__)
    using GmPart = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    Part received;
    for (int t = 0; t < 2; ++t) {
        GmPart gOut(out + (t * 2 + get_subblockid()) * 16 * 32);
        TPOP<Ring, Part, TileSplitAxis::TILE_UP_DOWN>(ring, received);
        TSTORE(gOut, received);
        TFREE<Ring, TileSplitAxis::TILE_UP_DOWN>(ring);
    }
#endif
}
