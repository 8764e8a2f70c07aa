// rmsnorm (manual mode): y = x / sqrt(mean(x^2, row) + eps) * gamma, fp32.
//
// Hand-placed twin of auto.cpp.
//
// UB map (ROWS x COLS fp32 = 16 KiB per block tile):
//   x[0]      0x00000  x[1] 0x04000   (input block, ping/pong)
//   y[0]      0x08000  y[1] 0x0C000   (output block, ping/pong)
//   sq        0x10000                 (x * x, V only)
//   tmp       0x14000                 (TROWSUM scratch, V only)
//   gammaFull 0x18000                 (gamma replicated over ROWS rows)
//   gammaRow  0x1C000                 (1 x COLS = 1 KiB, loaded once)
//   meanSq    0x1C400                 (ROWS x 1)
//   rstd      0x1C500                 (ROWS x 1)
// Everything ends below 0x1C600 (~113 KiB), under the 184 KiB limit.
//
// Cross-pipe edges per block (slot = i % 2, event id = slot):
//   MTE2->V  x[slot] loaded            V->MTE2  x[slot] free after rmsNormBlock
//   V->MTE3  y[slot] final             MTE3->V  y[slot] stored
// The one-off gamma load uses MTE2->V event 2, so it never shares a flag with the
// ping-pong loads. rmsNormBlock is a chain of dependent vector ops; the
// pipe_barrier(PIPE_V)s inside it separate each producer from its consumer.
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
// sq and tmp are scratch; meanSq and rstd hold one value per row. Only vector-pipe work
// happens here; the caller owns the cross-pipe flags for x and y.
template <typename TileT, typename RowT>
AICORE inline void rmsNormBlock(TileT &y, TileT &x, TileT &gammaFull, TileT &sq, TileT &tmp, RowT &meanSq,
                                RowT &rstd, float invCols, float eps)
{
    TMUL(sq, x, x);
    pipe_barrier(PIPE_V); // sq
    TROWSUM(meanSq, sq, tmp);
    pipe_barrier(PIPE_V); // meanSq
    TMULS(meanSq, meanSq, invCols);
    pipe_barrier(PIPE_V); // meanSq, in place
    TADDS(meanSq, meanSq, eps);
    pipe_barrier(PIPE_V); // meanSq
    TRSQRT(rstd, meanSq);
    pipe_barrier(PIPE_V); // rstd
    TROWEXPANDMUL(y, x, rstd);
    pipe_barrier(PIPE_V); // y, in place
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
    constexpr uint32_t TILE_BYTES = BLOCK_ELEMS * sizeof(T);
    constexpr uint32_t SMALL_BASE = 7 * TILE_BYTES;
    constexpr uint32_t GAMMA_ROW_BYTES = COLS * sizeof(T);
    static_assert(SMALL_BASE + GAMMA_ROW_BYTES + 0x200 <= 0x2E000, "UB tiles must stay below 184 KiB");

    TileT x[2];
    TASSIGN(x[0], 0 * TILE_BYTES);
    TASSIGN(x[1], 1 * TILE_BYTES);
    TileT y[2];
    TASSIGN(y[0], 2 * TILE_BYTES);
    TASSIGN(y[1], 3 * TILE_BYTES);
    TileT sq;
    TASSIGN(sq, 4 * TILE_BYTES);
    TileT tmp;
    TASSIGN(tmp, 5 * TILE_BYTES);
    TileT gammaFull;
    TASSIGN(gammaFull, 6 * TILE_BYTES);
    GammaT gammaRow;
    TASSIGN(gammaRow, SMALL_BASE);
    RowT meanSq;
    TASSIGN(meanSq, SMALL_BASE + GAMMA_ROW_BYTES);
    RowT rstd;
    TASSIGN(rstd, SMALL_BASE + GAMMA_ROW_BYTES + 0x100);

    // gamma is the same for every block: load it once, replicate it over ROWS rows.
    GmGammaT gGamma(gamma);
    TLOAD(gammaRow, gGamma);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
    TCOLEXPAND(gammaFull, gammaRow); // ordered before its first reader by the barriers in rmsNormBlock

    // Prime the reverse edges: both x slots and both y slots start out free.
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);

    for (int i = 0; i < NUM_BLOCKS; ++i) {
        const int slot = i % 2;
        GmT gIn(in + i * BLOCK_ELEMS);
        GmT gOut(out + i * BLOCK_ELEMS);

        wait_flag(PIPE_V, PIPE_MTE2, (event_t)slot); // block i - 2 is done reading x[slot]
        TLOAD(x[slot], gIn);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)slot);

        wait_flag(PIPE_MTE2, PIPE_V, (event_t)slot); // x[slot] holds block i
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)slot); // block i - 2 stored y[slot]
        rmsNormBlock(y[slot], x[slot], gammaFull, sq, tmp, meanSq, rstd, INV_COLS, RMSNORM_EPS);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)slot); // x[slot] may be reloaded
        set_flag(PIPE_V, PIPE_MTE3, (event_t)slot); // y[slot] is ready to store

        wait_flag(PIPE_V, PIPE_MTE3, (event_t)slot);
        TSTORE(gOut, y[slot]);
        set_flag(PIPE_MTE3, PIPE_V, (event_t)slot); // y[slot] may be overwritten
    }

    // Drain the reverse edges (one pending set per slot, also when the loop ran 0 times).
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
}

extern "C" __global__ AICORE void rmsnorm(__gm__ uint8_t *out, __gm__ uint8_t *in, __gm__ uint8_t *gamma)
{
#if defined(__DAV_VEC__)
    rmsNormKernel<float, RMSNORM_ROWS, RMSNORM_COLS, RMSNORM_BLOCKS>(reinterpret_cast<__gm__ float *>(out),
                                                                     reinterpret_cast<__gm__ float *>(in),
                                                                     reinterpret_cast<__gm__ float *>(gamma));
#endif
}
