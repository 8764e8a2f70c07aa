// reshape_subview (manual mode): computing through tile aliases.
//
// Hand-placed twin of auto.cpp. Only the three base tile arrays get a TASSIGN; the alias
// tiles take their address from TRESHAPE / TSUBVIEW (scalar-side bookkeeping, no data
// moves, so they need no flags).
//
// UB map (fp32):
//   x[0]    0x0000  x[1]    0x2000   (16 x 128 = 8 KiB, input, ping/pong)
//   fold[0] 0x4000  fold[1] 0x5000   (16 x 64 = 4 KiB)
//   peak[0] 0x6000  peak[1] 0x7000   (16 x 64 = 4 KiB)
//
// Cross-pipe edges per block (slot = i % 2):
//   MTE2->V  ev slot      x[slot] loaded         V->MTE2  ev slot      x[slot] last read (TMAX)
//   V->MTE3  ev slot      fold[slot] ready       MTE3->V  ev slot      fold[slot] stored
//   V->MTE3  ev slot + 2  peak[slot] ready       MTE3->V  ev slot + 2  peak[slot] stored
// Same-pipe: TMULS writes all of x[slot] (through xFlat), TADD and TMAX read it through
// the other aliases, so one pipe_barrier(PIPE_V) separates them. TADD and TMAX only read
// x[slot] and write different tiles: no barrier between them. Nothing in one block
// overlaps the other slot, so none is needed at the loop edge either.
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

    constexpr uint32_t IN_BYTES = ELEMS * sizeof(T);
    constexpr uint32_t OUT_BYTES = OUT_ELEMS * sizeof(T);
    static_assert(2 * IN_BYTES + 4 * OUT_BYTES <= 0x2E000, "UB tiles must stay below 184 KiB");

    TileT x[2];
    TASSIGN(x[0], 0x0);
    TASSIGN(x[1], IN_BYTES);
    OutT fold[2];
    TASSIGN(fold[0], 2 * IN_BYTES);
    TASSIGN(fold[1], 2 * IN_BYTES + OUT_BYTES);
    OutT peak[2];
    TASSIGN(peak[0], 2 * IN_BYTES + 2 * OUT_BYTES);
    TASSIGN(peak[1], 2 * IN_BYTES + 3 * OUT_BYTES);

    // Prime the reverse edges: every slot of x, fold and peak starts out free.
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0); // fold[0]
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1); // fold[1]
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID2); // peak[0]
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID3); // peak[1]

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

        wait_flag(PIPE_V, PIPE_MTE2, (event_t)slot); // block i - 2 is done reading x[slot]
        TLOAD(x[slot], gIn);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)slot);

        wait_flag(PIPE_MTE2, PIPE_V, (event_t)slot); // x[slot] holds block i
        TMULS(xFlat, xFlat, RS_SCALE);
        pipe_barrier(PIPE_V); // TADD / TMAX read the scaled x[slot] through other aliases
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)slot); // fold[slot] of block i - 2 stored
        TADD(fold[slot], xLeft, xRight);
        set_flag(PIPE_V, PIPE_MTE3, (event_t)slot);
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)(slot + 2)); // peak[slot] of block i - 2 stored
        TMAX(peak[slot], xTop, xBottom);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)slot);       // last read of x[slot]
        set_flag(PIPE_V, PIPE_MTE3, (event_t)(slot + 2)); // peak[slot] ready

        wait_flag(PIPE_V, PIPE_MTE3, (event_t)slot);
        TSTORE(gFold, fold[slot]);
        set_flag(PIPE_MTE3, PIPE_V, (event_t)slot);
        wait_flag(PIPE_V, PIPE_MTE3, (event_t)(slot + 2));
        TSTORE(gPeak, peak[slot]);
        set_flag(PIPE_MTE3, PIPE_V, (event_t)(slot + 2));
    }

    // Drain the reverse edges (one pending set per slot, also when the loop ran 0 times).
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID3);
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
