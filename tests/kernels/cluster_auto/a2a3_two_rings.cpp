// AUTO cluster kernel (a2a3) with two TPipe rings through GM, one each way: the cube core
// multiplies PANELS row panels of `a` by `b` and pushes each product through `sRing`; each vector
// core pops its 16-row half, takes its exponent, converts it to half and pushes it back through
// `pRing`; the cube core pops the gathered panel into L1, multiplies it by `b` again and stores the
// product. Each ring's flags hand over that ring's slots only: the cube core's pop of a panel
// from `pRing` (MTE2) does not wait for its own push of the next product into `sRing` (FIX).
#include "a2a3_sides.hpp"  // the PTO headers; CUBE_SIDE / VEC_SIDE: the core type compiled for

#ifndef PANELS
#define PANELS 3
#endif

extern "C" __global__ AICORE void two_rings(__gm__ float *out, __gm__ half *a, __gm__ half *b, __gm__ float *sRing,
                                            __gm__ half *pRing)
{
    using SRing = TPipe<0, Direction::DIR_C2V, 32 * 32 * sizeof(float), 2>;
    using PRing = TPipe<2, Direction::DIR_V2C, 32 * 32 * sizeof(half), 2>;
    SRing sPipe((__gm__ void *)sRing, 0x0, 0x0);
    PRing pPipe((__gm__ void *)pRing, 0x0, 0x40000);
    if constexpr (CUBE_SIDE) {
        using Panel = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
        using GmPanel = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        using GmOut = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        Panel lhsL1;
        Panel rhsL1;
        Panel probs;
        TileLeft<half, 32, 32> lhs;
        TileRight<half, 32, 32> rhs;
        TileAcc<float, 32, 32> acc;
        TileAcc<float, 32, 32> res;
        GmPanel gRhs(b);
        TLOAD(rhsL1, gRhs);
        TMOV(rhs, rhsL1);
        for (int p = 0; p < PANELS; p++) {
            GmPanel gLhs(a + p * 32 * 32);
            TLOAD(lhsL1, gLhs);
            TMOV(lhs, lhsL1);
            TMATMUL(acc, lhs, rhs);
            TPUSH<SRing, TileAcc<float, 32, 32>, TileSplitAxis::TILE_UP_DOWN>(sPipe, acc);
            TPOP<PRing, Panel, TileSplitAxis::TILE_UP_DOWN>(pPipe, probs);
            TMOV(lhs, probs);
            TMATMUL(res, lhs, rhs);
            GmOut gOut(out + p * 32 * 32);
            TSTORE(gOut, res);
        }
    }
    if constexpr (VEC_SIDE) {
        using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
        using HalfH = Tile<TileType::Vec, half, 16, 32, BLayout::RowMajor, 16, 32>;
        Half popped;
        Half exps;
        HalfH probs;
        for (int p = 0; p < PANELS; p++) {
            TPOP<SRing, Half, TileSplitAxis::TILE_UP_DOWN>(sPipe, popped);
            TEXP(exps, popped);
            TCVT(probs, exps, RoundMode::CAST_RINT);
            TPUSH<PRing, HalfH, TileSplitAxis::TILE_UP_DOWN>(pPipe, probs);
        }
    }
}
