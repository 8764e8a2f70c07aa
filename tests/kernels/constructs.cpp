// Front-end constructs in one vector kernel: `using` aliases, constexpr arithmetic (with a
// constexpr helper function), an AICORE inline helper called from a loop (with a
// TRESHAPE/TSUBVIEW inside it), nested loops with a compile-time and a run-time bound (the
// inner one under `#pragma unroll`), first/last-iteration guards, and tile arrays indexed by
// a constant, by `k % 2` and by a ping-pong variable.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int ROWS = 8;
constexpr int COLS = 64;
constexpr int HALF_COLS = COLS / 2;
AICORE constexpr inline int CeilDiv(int a, int b)
{
    return (a + b - 1) / b;
}

constexpr int INNER = CeilDiv(2 * 3 + 1, 2); // 4 column blocks per row block

using RowTile = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
using FlatTile = Tile<TileType::Vec, float, 1, ROWS * COLS, BLayout::RowMajor, 1, ROWS * COLS>;
using HalfTile = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, HALF_COLS>;
using GmRow = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS * INNER, 1>>;

// Doubles `t` in place through a flat view, then adds its right half into `acc`.
AICORE inline void foldInto(RowTile &acc, RowTile &t)
{
    FlatTile flat;
    TRESHAPE(flat, t);
    TADDS(flat, flat, 1.0f);
    HalfTile right;
    TSUBVIEW(right, t, 0, HALF_COLS);
    TADD(acc, acc, right);
}

template <int BLOCK_ELEMS>
AICORE void constructsKernel(__gm__ float *out, __gm__ float *in, int rowBlocks)
{
    RowTile acc[2];
    RowTile buf[2];
    RowTile stage[2];
    int pp = 0;

    for (int r = 0; r < rowBlocks; ++r) {
#pragma unroll
        for (int k = 0; k < INNER; k++) {
            GmRow src(in + (r * INNER + k) * COLS);
            if (k == 0) {
                TEXPANDS(acc[0], 0.0f);
            }
            TLOAD(buf[k % 2], src);
            TMOV(stage[pp], buf[k % 2]);
            foldInto(acc[0], stage[pp]);
            pp = 1 - pp;
            if (k == INNER - 1) {
                GmRow dst(out + r * BLOCK_ELEMS);
                TSTORE(dst, acc[0]);
            }
        }
    }
}

extern "C" __global__ AICORE void constructs(__gm__ uint8_t *out, __gm__ uint8_t *in, int rowBlocks)
{
#if defined(__DAV_C220_VEC__) || defined(__DAV_C310_VEC__)
    constructsKernel<ROWS * COLS * INNER>(reinterpret_cast<__gm__ float *>(out),
                                          reinterpret_cast<__gm__ float *>(in), rowBlocks);
#endif
}
