// AUTO cluster kernel (a5), cube -> vector through a TPipe of SLOTS UB slots: the cube core
// multiplies two row panels of `a` by `b` and pushes each product; each vector core pops its
// 16-row half, adds one and stores it. The vector tiles are declared before the core branches,
// so their placement is a line both core types compile.
#include <pto/pto-inst.hpp>
#include <pto/common/fifo.hpp>

using namespace pto;

#ifdef __DAV_CUBE__
constexpr bool CUBE_SIDE = true;
#else
constexpr bool CUBE_SIDE = false;
#endif
#ifdef __DAV_VEC__
constexpr bool VEC_SIDE = true;
#else
constexpr bool VEC_SIDE = false;
#endif

#ifndef PANELS
#define PANELS 2
#endif
#ifndef SLOTS
#define SLOTS 2
#endif

extern "C" __global__ AICORE void c2v_fifo(__gm__ float *out, __gm__ half *a, __gm__ half *b)
{
    using Acc = TileAcc<float, 32, 32>;
    using Part = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using Ring = TPipe<4, Direction::DIR_C2V, 16 * 32 * sizeof(float), SLOTS>;
    Ring ring((__gm__ void *)nullptr, 0x0, 0x0);
    Part received;
    Part result;
    TASSIGN(result, 0x1000);  // UB 2 KiB (vec core's plan)
    if constexpr (CUBE_SIDE) {
        using Panel = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
        using GmPanel = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        Panel lhsL1;
        Panel rhsL1;
        TASSIGN(rhsL1, 0x1000);  // L1 2 KiB
        TileLeft<half, 32, 32> lhs;
        TileRight<half, 32, 32> rhs;
        TASSIGN(rhs, 0x0);  // L0B 2 KiB
        Acc acc;
        GmPanel gRhs(b);
        TLOAD(rhsL1, gRhs);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);  // RAW rhsL1: MTE2 -> MTE1
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID2);  // RAW rhsL1: MTE2 -> MTE1
        TMOV(rhs, rhsL1);
        for (int p = 0; p < PANELS; ++p) {
            GmPanel gLhs(a + p * 32 * 32);
            TASSIGN(lhsL1, (p % 2) * 0x800);  // L1 2 x 2 KiB, one copy per iteration (multi-buffered)
            TASSIGN(lhs, (p % 2) * 0x800);  // L0A 2 x 2 KiB, one copy per iteration (multi-buffered)
            TASSIGN(acc, (p % 2) * 0x1000);  // L0C 2 x 4 KiB, one copy per iteration (multi-buffered)
            TLOAD(lhsL1, gLhs);
            set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(p % 2));  // RAW lhsL1: MTE2 -> MTE1
            wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(p % 2));  // RAW lhsL1: MTE2 -> MTE1
            TMOV(lhs, lhsL1);
            set_flag(PIPE_MTE1, PIPE_M, (event_t)(p % 2));  // RAW lhs, rhs: MTE1 -> M
            wait_flag(PIPE_MTE1, PIPE_M, (event_t)(p % 2));  // RAW lhs, rhs: MTE1 -> M
            TMATMUL(acc, lhs, rhs);
            set_flag(PIPE_M, PIPE_FIX, (event_t)(p % 2));  // RAW acc: M -> FIX
            wait_flag(PIPE_M, PIPE_FIX, (event_t)(p % 2));  // RAW acc: M -> FIX
            TPUSH<Ring, Acc, TileSplitAxis::TILE_UP_DOWN>(ring, acc);
        }
    }
    if constexpr (VEC_SIDE) {
        using GmPart = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: result free at start (MTE3 -> V)
        for (int p = 0; p < PANELS; ++p) {
            GmPart gOut(out + (p * 32 + get_subblockid() * 16) * 32);
            TPOP<Ring, Part, TileSplitAxis::TILE_UP_DOWN>(ring, received);
            wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR result: MTE3 -> V (next iteration)
            TADDS(result, received, 1.0f);
            set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW result: V -> MTE3
            TFREE<Ring, TileSplitAxis::TILE_UP_DOWN>(ring);
            wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW result: V -> MTE3
            TSTORE(gOut, result);
            set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR result: MTE3 -> V (next iteration)
        }
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: result (MTE3 -> V)
    }
}
