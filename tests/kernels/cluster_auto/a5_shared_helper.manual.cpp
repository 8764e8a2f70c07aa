// AUTO cluster kernel (a5) with a helper both core types call: `stage` loads a tile and copies
// it. On the cube core the copy is L1 -> L0A (MTE1), on a vector core UB -> UB (V), so the line
// between its two statements differs by core type: one preprocessor branch for each. The cube
// core pushes its product through a TPipe; each vector core adds its half of `bias` to its half
// of the product and stores the sum.
#include <pto/pto-inst.hpp>
#include <pto/common/fifo.hpp>

using namespace pto;

#if defined(__DAV_CUBE__)
constexpr bool CUBE_SIDE = true;
#else
constexpr bool CUBE_SIDE = false;
#endif
#if defined(__DAV_VEC__)
constexpr bool VEC_SIDE = true;
#else
constexpr bool VEC_SIDE = false;
#endif

template <typename Dst, typename Src, typename GmT>
AICORE inline void stage(Dst &dst, Src &src, GmT &g)
{
    TLOAD(src, g);
    #if defined(__DAV_CUBE__)
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // RAW src: MTE2 -> MTE1 (cube core)
    #elif defined(__DAV_VEC__)
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW src: MTE2 -> V (vec core)
    #endif  // the lines of each core type
    #if defined(__DAV_CUBE__)
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // RAW src: MTE2 -> MTE1 (cube core)
    #elif defined(__DAV_VEC__)
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW src: MTE2 -> V (vec core)
    #endif  // the lines of each core type
    TMOV(dst, src);
}

extern "C" __global__ AICORE void shared_helper(__gm__ float *out, __gm__ float *bias, __gm__ half *a, __gm__ half *b)
{
    using Acc = TileAcc<float, 32, 32>;
    using Part = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using Ring = TPipe<10, Direction::DIR_C2V, 16 * 32 * sizeof(float), 2>;
    Ring ring((__gm__ void *)nullptr, 0x0, 0x0);
    if constexpr (CUBE_SIDE) {
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
        stage(lhs, lhsL1, gA);
        TLOAD(rhsL1, gB);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);  // RAW rhsL1: MTE2 -> MTE1
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);  // RAW rhsL1: MTE2 -> MTE1
        TMOV(rhs, rhsL1);
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  // RAW lhs, rhs: MTE1 -> M
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  // RAW lhs, rhs: MTE1 -> M
        TMATMUL(acc, lhs, rhs);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);  // RAW acc: M -> FIX
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);  // RAW acc: M -> FIX
        TPUSH<Ring, Acc, TileSplitAxis::TILE_UP_DOWN>(ring, acc);
    }
    if constexpr (VEC_SIDE) {
        using GmPart = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        Part loaded;
        TASSIGN(loaded, 0x1000);  // UB 2 KiB
        Part offset;
        TASSIGN(offset, 0x1800);  // UB 2 KiB
        Part received;
        Part sum;
        TASSIGN(sum, 0x2000);  // UB 2 KiB
        GmPart gBias(bias + get_subblockid() * 16 * 32);
        GmPart gOut(out + get_subblockid() * 16 * 32);
        stage(offset, loaded, gBias);
        TPOP<Ring, Part, TileSplitAxis::TILE_UP_DOWN>(ring, received);
        TADD(sum, received, offset);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW sum: V -> MTE3
        TFREE<Ring, TileSplitAxis::TILE_UP_DOWN>(ring);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW sum: V -> MTE3
        TSTORE(gOut, sum);
    }
}
