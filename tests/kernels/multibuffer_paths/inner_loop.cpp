// The tile is first touched inside an inner loop that runs HALVES times (a constant, at least
// once), each run loading it whole; after the inner loop the body reads the last half again.
// Every iteration of the outer loop therefore writes the tile before reading it.
#include "common.hpp"

constexpr int HALF_ROWS = ROWS / 2;
constexpr int HALVES = 2;
using HalfT = Tile<TileType::Vec, float, HALF_ROWS, COLS, BLayout::RowMajor, HALF_ROWS, COLS>;
using HalfGm = GlobalTensor<float, Shape<1, 1, 1, HALF_ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;

extern "C" __global__ AICORE void inner_loop(__gm__ float *out, __gm__ float *last, __gm__ float *x)
{
    HalfT t;
    HalfT r;
    for (int b = 0; b < STEPS; ++b) {
        for (int h = 0; h < HALVES; ++h) {
            HalfGm src(x + b * BLOCK + h * HALF_ROWS * COLS);
            HalfGm dst(out + b * BLOCK + h * HALF_ROWS * COLS);
            TLOAD(t, src);
            TEXP(t, t);
            TSTORE(dst, t);
        }
        TMULS(r, t, 2.0f);
        HalfGm twice(last + b * HALF_ROWS * COLS);
        TSTORE(twice, r);
    }
}
