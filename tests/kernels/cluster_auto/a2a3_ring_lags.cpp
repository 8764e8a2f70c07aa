// AUTO cluster kernel (a2a3): two rings whose vector-side tiles sit a different number of pops
// behind their ring's count. The cube core pushes each product twice into `pairs` and, every
// other panel, once into `scales`. Each vector core pops both copies (`first` is read after
// `second` was popped: two counts behind), adds them, and scales the sum by the last tile
// popped from `scales`, which on odd panels was popped one panel earlier (how far behind
// depends on the path: that ring's slots are not told apart).
#include "a2a3_sides.hpp"  // the PTO headers; CUBE_SIDE / VEC_SIDE: the core type compiled for

#ifndef PANELS
#define PANELS 4
#endif

extern "C" __global__ AICORE void ring_lags(__gm__ float *out, __gm__ half *a, __gm__ half *b,
                                            __gm__ float *pairRing, __gm__ float *scaleRing)
{
    using PairRing = TPipe<0, Direction::DIR_C2V, 32 * 32 * sizeof(float), 2>;
    using ScaleRing = TPipe<2, Direction::DIR_C2V, 32 * 32 * sizeof(float), 2>;
    PairRing pairs((__gm__ void *)pairRing, 0x0, 0x0);
    ScaleRing scales((__gm__ void *)scaleRing, 0x2000, 0x0);
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
            TPUSH<PairRing, TileAcc<float, 32, 32>, TileSplitAxis::TILE_UP_DOWN>(pairs, acc);
            TPUSH<PairRing, TileAcc<float, 32, 32>, TileSplitAxis::TILE_UP_DOWN>(pairs, acc);
            if (p % 2 == 0) {
                TPUSH<ScaleRing, TileAcc<float, 32, 32>, TileSplitAxis::TILE_UP_DOWN>(scales, acc);
            }
        }
    }
    if constexpr (VEC_SIDE) {
        using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
        using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        Half first;
        Half second;
        Half scale;
        Half sum;
        for (int p = 0; p < PANELS; p++) {
            GmHalf gOut(out + (p * 32 + get_subblockid() * 16) * 32);
            TPOP<PairRing, Half, TileSplitAxis::TILE_UP_DOWN>(pairs, first);
            TPOP<PairRing, Half, TileSplitAxis::TILE_UP_DOWN>(pairs, second);
            TADD(sum, first, second);
            if (p % 2 == 0) {
                TPOP<ScaleRing, Half, TileSplitAxis::TILE_UP_DOWN>(scales, scale);
            }
            TMUL(sum, sum, scale);
            TSTORE(gOut, sum);
        }
    }
}
