// softmax (AUTO mode): row-wise softmax of an (NUM_BLOCKS * ROWS) x COLS fp32 matrix.
//
// The matrix is processed in blocks of ROWS rows. For each block:
//   m = rowmax(x); y = exp(x - m); s = rowsum(y); y = y / s
// Input and output blocks are double buffered (tile arrays indexed by i % 2); the
// row statistics and the reduction scratch tile are single tiles reused every block.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int SOFTMAX_ROWS = 16;
constexpr int SOFTMAX_COLS = 256;
// Blocks: override with -DSOFTMAX_BLOCKS=... (any count >= 0).
#ifndef SOFTMAX_BLOCKS
#define SOFTMAX_BLOCKS 8
#endif

template <typename T, int ROWS, int COLS, int NUM_BLOCKS>
AICORE void softmaxKernel(__gm__ T *out, __gm__ T *in)
{
    static_assert(NUM_BLOCKS >= 0, "the block count must not be negative");
    using TileT = Tile<TileType::Vec, T, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using RowT = Tile<TileType::Vec, T, ROWS, 1, BLayout::ColMajor, ROWS, 1>; // one value per row
    using GmT = GlobalTensor<T, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;

    constexpr int BLOCK_ELEMS = ROWS * COLS;

    TileT x[2];
    TileT y[2];
    TileT tmp;
    RowT rowMax;
    RowT rowSum;

    for (int i = 0; i < NUM_BLOCKS; ++i) {
        const int slot = i % 2;
        GmT gIn(in + i * BLOCK_ELEMS);
        GmT gOut(out + i * BLOCK_ELEMS);

        TLOAD(x[slot], gIn);
        TROWMAX(rowMax, x[slot], tmp);
        TROWEXPANDSUB(y[slot], x[slot], rowMax);
        TEXP(y[slot], y[slot]);
        TROWSUM(rowSum, y[slot], tmp);
        TROWEXPANDDIV(y[slot], y[slot], rowSum);
        TSTORE(gOut, y[slot]);
    }
}

extern "C" __global__ AICORE void softmax(__gm__ uint8_t *out, __gm__ uint8_t *in)
{
#if defined(__DAV_VEC__)
    softmaxKernel<float, SOFTMAX_ROWS, SOFTMAX_COLS, SOFTMAX_BLOCKS>(reinterpret_cast<__gm__ float *>(out),
                                                                     reinterpret_cast<__gm__ float *>(in));
#endif
}
