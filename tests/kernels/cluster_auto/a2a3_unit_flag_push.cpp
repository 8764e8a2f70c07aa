// AUTO cluster kernel (a2a3), cube -> vector through an explicit-index FIFO in GM (`TMPipe`,
// GM_FIFO, two entries, no local FIFO) built with EN_UNIT_FLAG: each push stores the accumulator
// with STPhase::Final, so the L0C unit flags order it after the final matmul that wrote it, and
// the next phased matmul after it. The cube core multiplies PANELS row panels of `a` by `b` (two
// phased matmuls per panel: a partial and a final one) and pushes each product; each vector core
// pops its 16-row half, scales it and stores it.
#include "a2a3_sides.hpp"  // the PTO headers; CUBE_SIDE / VEC_SIDE: the core type compiled for

#ifndef PANELS
#define PANELS 3
#endif

extern "C" __global__ AICORE void unit_flag_push(__gm__ float *out, __gm__ half *a, __gm__ half *b,
                                                 __gm__ float *ring)
{
    using Product = TileAcc<float, 32, 32>;
    using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using Fifo = TMPipe<0, FIFOType::GM_FIFO, 2, 2, Product, Half, true, 0>;
    Fifo fifo(ring);
    if constexpr (CUBE_SIDE) {
        using Panel = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
        using GmPanel = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
        Panel lhsL1;
        Panel rhsL1;
        TileLeft<half, 32, 32> lhs;
        TileRight<half, 32, 32> rhs;
        Product acc;
        GmPanel gRhs(b);
        TLOAD(rhsL1, gRhs);
        TMOV(rhs, rhsL1);
        for (int p = 0; p < PANELS; p++) {
            GmPanel gLhs(a + p * 32 * 32);
            TLOAD(lhsL1, gLhs);
            TMOV(lhs, lhsL1);
            TMATMUL<AccPhase::Partial>(acc, lhs, rhs);
            TMATMUL_ACC<AccPhase::Final>(acc, lhs, rhs);
            fifo.prod.setTileId(p, 0);
            TPUSH(acc, fifo);
        }
    }
    if constexpr (VEC_SIDE) {
        using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
        Half popped;
        Half scaled;
        for (int p = 0; p < PANELS; p++) {
            GmHalf gOut(out + (p * 32 + get_subblockid() * 16) * 32);
            fifo.cons.setTileId(p, 0);
            fifo.cons.setEntryOffset(get_subblockid() * 16 * 32 * sizeof(float));
            TPOP(popped, fifo);
            TMULS(scaled, popped, 0.5f);
            TSTORE(gOut, scaled);
        }
    }
}
