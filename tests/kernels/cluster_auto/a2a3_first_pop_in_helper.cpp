// AUTO cluster kernel (a2a3): the cube core pushes PANELS products through a two-slot TPipe in GM
// (`ring`); each vector core folds them into a running sum with the helper `fold_pop`, called from
// two loops: for panel 0 it copies the popped half into the sum, for every later one it rescales
// the sum and adds the panel (`fold`), the last time also scaling the result (`fold_last`). The
// second loop's call never takes the panel-0 branch, so the lines the first call needs there are
// written once for both and never run in the second.
#include "a2a3_sides.hpp"  // the PTO headers; CUBE_SIDE / VEC_SIDE: the core type compiled for

#ifndef PANELS
#define PANELS 5
#endif

using Ring = TPipe<0, Direction::DIR_C2V, 32 * 32 * sizeof(float), 2>;
using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;

AICORE inline void fold(Half &sum, Half &part)
{
    TMULS(sum, sum, 0.5f);
    TADD(sum, sum, part);
}

AICORE inline void fold_last(Half &sum, Half &part)
{
    TMULS(sum, sum, 0.5f);
    TADD(sum, sum, part);
    TMULS(sum, sum, 0.25f);
}

AICORE inline void fold_pop(Ring &pipe, int p, int last, Half &sum, Half &part)
{
    if (p == 0) {
        TPOP<Ring, Half, TileSplitAxis::TILE_UP_DOWN>(pipe, part);
        TMULS(sum, part, 1.0f);  // the sum in a buffer of its own: a popped tile lives in the pipe's slot
    } else {
        TPOP<Ring, Half, TileSplitAxis::TILE_UP_DOWN>(pipe, part);
        if (p < last) {
            fold(sum, part);
        } else {
            fold_last(sum, part);
        }
    }
    TFREE<Ring, TileSplitAxis::TILE_UP_DOWN>(pipe);
}

extern "C" __global__ AICORE void first_pop_in_helper(__gm__ float *out, __gm__ half *a, __gm__ half *b, __gm__ float *ring)
{
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
        using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        Half sum;
        Half part;
        for (int p = 0; p < 3; p++) {
            fold_pop(pipe, p, PANELS - 1, sum, part);
        }
        for (int p = 3; p < PANELS; p++) {
            fold_pop(pipe, p, PANELS - 1, sum, part);
        }
        GmHalf gOut(out + get_subblockid() * 16 * 32);
        TSTORE(gOut, sum);
    }
}
