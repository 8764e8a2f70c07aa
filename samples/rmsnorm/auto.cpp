// rmsnorm (AUTO mode): y = x / sqrt(mean(x^2, row) + eps) * gamma, fp32.
//
// x is (NUM_BLOCKS * ROWS) x COLS, gamma is 1 x COLS. gamma is loaded once and broadcast
// down the rows (TCOLEXPAND) before the loop; each block of ROWS rows is normalised by
// the rmsNormBlock helper. x and y blocks are double buffered (tile arrays, i % 2).
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int RMSNORM_ROWS = 16;
constexpr int RMSNORM_COLS = 256;
// Blocks: override with -DRMSNORM_BLOCKS=... (any count >= 0).
#ifndef RMSNORM_BLOCKS
#define RMSNORM_BLOCKS 8
#endif
constexpr float RMSNORM_EPS = 1e-6f;

// Normalises one block: y = x * rsqrt(mean(x * x) + eps) * gammaFull.
// sq and tmp are scratch; meanSq and rstd hold one value per row.
template <typename TileT, typename RowT>
AICORE inline void rmsNormBlock(TileT &y, TileT &x, TileT &gammaFull, TileT &sq, TileT &tmp, RowT &meanSq,
                                RowT &rstd, float invCols, float eps)
{
    TMUL(sq, x, x);
    TROWSUM(meanSq, sq, tmp);
    TMULS(meanSq, meanSq, invCols);
    TADDS(meanSq, meanSq, eps);
    TRSQRT(rstd, meanSq);
    TROWEXPANDMUL(y, x, rstd);
    TMUL(y, y, gammaFull);
}

template <typename T, int ROWS, int COLS, int NUM_BLOCKS>
AICORE void rmsNormKernel(__gm__ T *out, __gm__ T *in, __gm__ T *gamma)
{
    static_assert(NUM_BLOCKS >= 0, "the block count must not be negative");
    using TileT = Tile<TileType::Vec, T, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using RowT = Tile<TileType::Vec, T, ROWS, 1, BLayout::ColMajor, ROWS, 1>;
    using GammaT = Tile<TileType::Vec, T, 1, COLS, BLayout::RowMajor, 1, COLS>;
    using GmT = GlobalTensor<T, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    using GmGammaT = GlobalTensor<T, Shape<1, 1, 1, 1, COLS>, Stride<1, 1, 1, COLS, 1>>;

    constexpr int BLOCK_ELEMS = ROWS * COLS;
    constexpr float INV_COLS = 1.0f / COLS;

    TileT x[2];
    TileT y[2];
    TileT sq;
    TileT tmp;
    TileT gammaFull;
    GammaT gammaRow;
    RowT meanSq;
    RowT rstd;

    // gamma is the same for every block: load it once, replicate it over ROWS rows.
    GmGammaT gGamma(gamma);
    TLOAD(gammaRow, gGamma);
    TCOLEXPAND(gammaFull, gammaRow);

    for (int i = 0; i < NUM_BLOCKS; ++i) {
        const int slot = i % 2;
        GmT gIn(in + i * BLOCK_ELEMS);
        GmT gOut(out + i * BLOCK_ELEMS);

        TLOAD(x[slot], gIn);
        rmsNormBlock(y[slot], x[slot], gammaFull, sq, tmp, meanSq, rstd, INV_COLS, RMSNORM_EPS);
        TSTORE(gOut, y[slot]);
    }
}

extern "C" __global__ AICORE void rmsnorm(__gm__ uint8_t *out, __gm__ uint8_t *in, __gm__ uint8_t *gamma)
{
#if defined(__DAV_VEC__)
    rmsNormKernel<float, RMSNORM_ROWS, RMSNORM_COLS, RMSNORM_BLOCKS>(reinterpret_cast<__gm__ float *>(out),
                                                                     reinterpret_cast<__gm__ float *>(in),
                                                                     reinterpret_cast<__gm__ float *>(gamma));
#endif
}
