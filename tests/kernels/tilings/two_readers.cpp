// Two double-buffered inputs whose last readers are far apart: x is read once at the start of
// the step, y only after a chain of vector work. Each input's slot is released after its own
// last reader, so the next load of x does not wait for the reader of y.
#include <pto/pto-inst.hpp>
using namespace pto;
constexpr int ROWS = 32;
constexpr int COLS = 128;
constexpr int STEPS = 16;
using TileT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;

extern "C" __global__ AICORE void two_readers(__gm__ float *out, __gm__ float *xs, __gm__ float *ys)
{
    TileT x[2];
    TileT y[2];
    TileT t[2];
    for (int i = 0; i < STEPS; ++i) {
        GmT gx(xs + i * ROWS * COLS);
        GmT gy(ys + i * ROWS * COLS);
        GmT go(out + i * ROWS * COLS);
        TLOAD(x[i % 2], gx);
        TLOAD(y[i % 2], gy);
        TMULS(t[i % 2], x[i % 2], 0.5f);
        TEXP(t[i % 2], t[i % 2]);
        TMULS(t[i % 2], t[i % 2], 2.0f);
        TEXP(t[i % 2], t[i % 2]);
        TADD(t[i % 2], t[i % 2], y[i % 2]);
        TSTORE(go, t[i % 2]);
    }
}
