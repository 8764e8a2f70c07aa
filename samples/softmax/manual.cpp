// softmax (manual mode): row-wise softmax of an (NUM_BLOCKS * ROWS) x COLS fp32 matrix.
//
// Hand-placed twin of auto.cpp.
//
// UB map (ROWS x COLS fp32 = 16 KiB per block tile):
//   x[0]   0x00000  x[1] 0x04000   (input block, ping/pong)
//   y[0]   0x08000  y[1] 0x0C000   (output block, ping/pong)
//   tmp    0x10000                 (reduction scratch, V only)
//   rowMax 0x14000                 (ROWS x 1, V only)
//   rowSum 0x14100                 (ROWS x 1, V only)
// Everything ends below 0x14200, far under the 184 KiB limit (TROWEXPAND* use the
// hidden scratch at [184 KiB, 192 KiB)).
//
// Cross-pipe edges per block (slot = i % 2, event id = slot):
//   MTE2->V  x[slot] loaded            V->MTE2  x[slot] last read (TROWEXPANDSUB)
//   V->MTE3  y[slot] final             MTE3->V  y[slot] stored
// Same-pipe: the five vector ops form a dependence chain (each reads what the previous
// one wrote, or shares tmp / the broadcast scratch), so each pair is separated by
// pipe_barrier(PIPE_V). Those barriers also order the next block's TROWMAX after this
// block's uses of rowMax, rowSum and tmp, so no barrier is needed at the loop edge.
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
    constexpr uint32_t TILE_BYTES = BLOCK_ELEMS * sizeof(T);
    constexpr uint32_t ROW_STAT_BASE = 5 * TILE_BYTES;
    static_assert(ROW_STAT_BASE + 0x200 <= 0x2E000, "UB tiles must stay below 184 KiB");

    TileT x[2];
    TASSIGN(x[0], 0 * TILE_BYTES);
    TASSIGN(x[1], 1 * TILE_BYTES);
    TileT y[2];
    TASSIGN(y[0], 2 * TILE_BYTES);
    TASSIGN(y[1], 3 * TILE_BYTES);
    TileT tmp;
    TASSIGN(tmp, 4 * TILE_BYTES);
    RowT rowMax;
    TASSIGN(rowMax, ROW_STAT_BASE);
    RowT rowSum;
    TASSIGN(rowSum, ROW_STAT_BASE + 0x100);

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
        TROWMAX(rowMax, x[slot], tmp);
        pipe_barrier(PIPE_V); // rowMax written above, read below
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)slot); // block i - 2 stored y[slot]
        TROWEXPANDSUB(y[slot], x[slot], rowMax);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)slot); // last read of x[slot]
        pipe_barrier(PIPE_V); // TEXP reads y[slot] in place
        TEXP(y[slot], y[slot]);
        pipe_barrier(PIPE_V); // TROWSUM reads y[slot]
        TROWSUM(rowSum, y[slot], tmp);
        pipe_barrier(PIPE_V); // rowSum read; y[slot] rewritten in place
        TROWEXPANDDIV(y[slot], y[slot], rowSum);
        set_flag(PIPE_V, PIPE_MTE3, (event_t)slot);

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

extern "C" __global__ AICORE void softmax(__gm__ uint8_t *out, __gm__ uint8_t *in)
{
#if defined(__DAV_VEC__)
    softmaxKernel<float, SOFTMAX_ROWS, SOFTMAX_COLS, SOFTMAX_BLOCKS>(reinterpret_cast<__gm__ float *>(out),
                                                                     reinterpret_cast<__gm__ float *>(in));
#endif
}
