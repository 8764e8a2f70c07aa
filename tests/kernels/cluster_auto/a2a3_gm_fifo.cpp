// AUTO cluster kernel (a2a3), cube -> vector through a TPipe whose two slots are in GM (`ring`)
// and whose consumer copies each tile into one of two UB slots: the cube core multiplies
// PANELS row panels of `a` by `b` and pushes each product; each vector core pops its 16-row
// half, takes its exponent and stores it.
#include "a2a3_sides.hpp"  // the PTO headers; CUBE_SIDE / VEC_SIDE: the core type compiled for

#ifndef PANELS
#define PANELS 3
#endif

extern "C" __global__ AICORE void gm_fifo(__gm__ float *out, __gm__ half *a, __gm__ half *b, __gm__ float *ring)
{
    using Ring = TPipe<0, Direction::DIR_C2V, 32 * 32 * sizeof(float), 2>;
    Ring pipe((__gm__ void *)ring, 0x0, 0x0);
    if constexpr (CUBE_SIDE) {
        using Panel = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
        using GmPanel = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        Panel lhsL1;
        Panel rhsL1;
        TileLeft<half, 32, 32> lhs;
        TileRight<half, 32, 32> rhs;
        TileAcc<float, 32, 32> acc;
        GmPanel gRhs(b);
        TLOAD(rhsL1, gRhs);
        TMOV(rhs, rhsL1);
        for (int p = 0; p < PANELS; p++) {
            GmPanel gLhs(a + p * 32 * 32);
            TLOAD(lhsL1, gLhs);
            TMOV(lhs, lhsL1);
            TMATMUL(acc, lhs, rhs);
            TPUSH<Ring, TileAcc<float, 32, 32>, TileSplitAxis::TILE_UP_DOWN>(pipe, acc);
        }
    }
    if constexpr (VEC_SIDE) {
        using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
        using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        Half popped;
        Half exps;
        for (int p = 0; p < PANELS; p++) {
            GmHalf gOut(out + (p * 32 + get_subblockid() * 16) * 32);
            TPOP<Ring, Half, TileSplitAxis::TILE_UP_DOWN>(pipe, popped);
            TEXP(exps, popped);
            TFREE<Ring, TileSplitAxis::TILE_UP_DOWN>(pipe);
            TSTORE(gOut, exps);
        }
    }
}
