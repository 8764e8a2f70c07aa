// AUTO cluster kernel (a5), vector -> cube through a TPipe of two L1 slots: each vector core
// scales its 16-row half of a 32x32 block, converts it to the fractal layout and pushes it; the
// two halves meet in one slot, which the cube core pops as a whole matrix, squares and stores.
#include <pto/pto-inst.hpp>
#include <pto/common/fifo.hpp>

using namespace pto;

#if defined(__DAV_VEC__)
constexpr bool VEC_SIDE = true;
#else
constexpr bool VEC_SIDE = false;
#endif
#if defined(__DAV_CUBE__)
constexpr bool CUBE_SIDE = true;
#else
constexpr bool CUBE_SIDE = false;
#endif

extern "C" __global__ AICORE void v2c_fifo(__gm__ float *out, __gm__ float *in)
{
    using Block = Tile<TileType::Mat, float, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor, 512>;
    using HalfFractal = Tile<TileType::Vec, float, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor, 512>;
    using Ring = TPipe<6, Direction::DIR_V2C, 32 * 32 * sizeof(float), 2>;
    Ring ring((__gm__ void *)nullptr, 0x0, 0x8000);
    if constexpr (VEC_SIDE) {
        using HalfRows = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
        using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        HalfRows loaded;
        TASSIGN(loaded, 0x0);  // UB 2 KiB
        HalfRows scaled;
        TASSIGN(scaled, 0x800);  // UB 2 KiB
        HalfFractal packed;
        TASSIGN(packed, 0x1000);  // UB 2 KiB
        GmHalf gIn(in + get_subblockid() * 16 * 32);
        TLOAD(loaded, gIn);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW loaded: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW loaded: MTE2 -> V
        TMULS(scaled, loaded, 0.5f);
        TMOV(packed, scaled);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW packed: V -> MTE3
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW packed: V -> MTE3
        TPUSH<Ring, HalfFractal, TileSplitAxis::TILE_UP_DOWN>(ring, packed);
    }
    if constexpr (CUBE_SIDE) {
        using GmBlock = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        Block block;
        TileLeft<float, 32, 32> lhs;
        TASSIGN(lhs, 0x0);  // L0A 4 KiB
        TileRight<float, 32, 32> rhs;
        TASSIGN(rhs, 0x0);  // L0B 4 KiB
        TileAcc<float, 32, 32> square;
        TASSIGN(square, 0x0);  // L0C 4 KiB
        GmBlock gOut(out);
        TPOP<Ring, Block, TileSplitAxis::TILE_UP_DOWN>(ring, block);
        TMOV(lhs, block);
        TMOV(rhs, block);
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  // RAW lhs, rhs: MTE1 -> M
        TFREE<Ring, TileSplitAxis::TILE_UP_DOWN>(ring);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  // RAW lhs, rhs: MTE1 -> M
        TMATMUL(square, lhs, rhs);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);  // RAW square: M -> FIX
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);  // RAW square: M -> FIX
        TSTORE(gOut, square);
    }
}
