// reshape_subview (AUTO mode): computing through tile aliases.
//
// Each block of the input is a 16 x 128 fp32 tile x. Per block:
//   1. x *= SCALE, through a 1 x 2048 TRESHAPE view of x (flat elementwise op);
//   2. fold = x[:, 0:64] + x[:, 64:128], the two column halves taken with TSUBVIEW;
//   3. x viewed as 32 x 64 (TRESHAPE); peak = max(view rows 0..15, view rows 16..31),
//      the two row halves taken with TSUBVIEW of the reshaped view;
//   4. fold and peak (16 x 64 each) are stored to their own outputs.
// Input and results are double buffered (tile arrays indexed by i % 2). The alias
// tiles are declared in the loop body and bound once per iteration.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int RS_ROWS = 16;
constexpr int RS_COLS = 128;
// Blocks: override with -DRS_BLOCKS=... (any count >= 0).
#ifndef RS_BLOCKS
#define RS_BLOCKS 8
#endif
constexpr float RS_SCALE = 0.5f;

template <typename T, int ROWS, int COLS, int NUM_BLOCKS>
AICORE void reshapeSubviewKernel(__gm__ T *outFold, __gm__ T *outPeak, __gm__ T *in)
{
    static_assert(NUM_BLOCKS >= 0, "the block count must not be negative");
    constexpr int HALF = COLS / 2;
    constexpr int ELEMS = ROWS * COLS;
    constexpr int OUT_ELEMS = ROWS * HALF;

    using TileT = Tile<TileType::Vec, T, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using FlatT = Tile<TileType::Vec, T, 1, ELEMS, BLayout::RowMajor, 1, ELEMS>;            // x as one row
    using ViewT = Tile<TileType::Vec, T, 2 * ROWS, HALF, BLayout::RowMajor, 2 * ROWS, HALF>; // x as 32 x 64
    using ColHalfT = Tile<TileType::Vec, T, ROWS, COLS, BLayout::RowMajor, ROWS, HALF>;      // column half of x
    using RowHalfT = Tile<TileType::Vec, T, 2 * ROWS, HALF, BLayout::RowMajor, ROWS, HALF>;  // row half of view
    using OutT = Tile<TileType::Vec, T, ROWS, HALF, BLayout::RowMajor, ROWS, HALF>;
    using GmInT = GlobalTensor<T, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    using GmOutT = GlobalTensor<T, Shape<1, 1, 1, ROWS, HALF>, Stride<1, 1, 1, HALF, 1>>;

    TileT x[2];
    OutT fold[2];
    OutT peak[2];

    for (int i = 0; i < NUM_BLOCKS; ++i) {
        const int slot = i % 2;
        GmInT gIn(in + i * ELEMS);
        GmOutT gFold(outFold + i * OUT_ELEMS);
        GmOutT gPeak(outPeak + i * OUT_ELEMS);

        FlatT xFlat;
        TRESHAPE(xFlat, x[slot]);
        ColHalfT xLeft;
        TSUBVIEW(xLeft, x[slot], 0, 0);
        ColHalfT xRight;
        TSUBVIEW(xRight, x[slot], 0, HALF);
        ViewT xView;
        TRESHAPE(xView, x[slot]);
        RowHalfT xTop;
        TSUBVIEW(xTop, xView, 0, 0);
        RowHalfT xBottom;
        TSUBVIEW(xBottom, xView, ROWS, 0);

        TLOAD(x[slot], gIn);
        TMULS(xFlat, xFlat, RS_SCALE);
        TADD(fold[slot], xLeft, xRight);
        TMAX(peak[slot], xTop, xBottom);
        TSTORE(gFold, fold[slot]);
        TSTORE(gPeak, peak[slot]);
    }
}

extern "C" __global__ AICORE void reshape_subview(__gm__ uint8_t *outFold, __gm__ uint8_t *outPeak,
                                                  __gm__ uint8_t *in)
{
#if defined(__DAV_VEC__)
    reshapeSubviewKernel<float, RS_ROWS, RS_COLS, RS_BLOCKS>(reinterpret_cast<__gm__ float *>(outFold),
                                                             reinterpret_cast<__gm__ float *>(outPeak),
                                                             reinterpret_cast<__gm__ float *>(in));
#endif
}
