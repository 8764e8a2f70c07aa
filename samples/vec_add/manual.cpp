// vec_add (manual mode): out = a + b, elementwise, fp32.
//
// Hand-placed twin of auto.cpp: same tiling and tile program, with every tile bound to
// a UB address and the pipes ordered explicitly.
//
// UB map (ROWS x COLS fp32 = 16 KiB per tile, 96 KiB in all, below the 184 KiB limit):
//   x[0] 0x00000  x[1] 0x04000   (input a, ping/pong)
//   y[0] 0x08000  y[1] 0x0C000   (input b, ping/pong)
//   z[0] 0x10000  z[1] 0x14000   (result,  ping/pong)
//
// Pipeline per tile i (slot = i % 2, event id = slot):
//   MTE2: TLOAD x/y[slot]  --MTE2->V-->  V: TADD z[slot]  --V->MTE3-->  MTE3: TSTORE z[slot]
// Reverse edges free a slot for tile i + 2: V->MTE2 (x/y read by TADD), MTE3->V (z read
// by TSTORE). They are primed once per slot before the loop and drained after it.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int VEC_ADD_ROWS = 32;
constexpr int VEC_ADD_COLS = 128;
// Tiles per core: override with -DVEC_ADD_TILES_PER_CORE=... (any count >= 0).
#ifndef VEC_ADD_TILES_PER_CORE
#define VEC_ADD_TILES_PER_CORE 16
#endif

template <typename T, int ROWS, int COLS, int NUM_TILES>
AICORE void vecAddKernel(__gm__ T *out, __gm__ T *a, __gm__ T *b)
{
    static_assert(NUM_TILES >= 0, "the tile count must not be negative");
    using TileT = Tile<TileType::Vec, T, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using GmT = GlobalTensor<T, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;

    constexpr int TILE_ELEMS = ROWS * COLS;
    constexpr int CORE_ELEMS = NUM_TILES * TILE_ELEMS;
    constexpr uint32_t TILE_BYTES = TILE_ELEMS * sizeof(T);
    static_assert(6 * TILE_BYTES <= 0x2E000, "UB tiles must stay below 184 KiB");

    // SPMD split: block b works on elements [b * CORE_ELEMS, (b + 1) * CORE_ELEMS).
    const int64_t coreOffset = static_cast<int64_t>(get_block_idx()) * CORE_ELEMS;

    TileT x[2];
    TASSIGN(x[0], 0 * TILE_BYTES);
    TASSIGN(x[1], 1 * TILE_BYTES);
    TileT y[2];
    TASSIGN(y[0], 2 * TILE_BYTES);
    TASSIGN(y[1], 3 * TILE_BYTES);
    TileT z[2];
    TASSIGN(z[0], 4 * TILE_BYTES);
    TASSIGN(z[1], 5 * TILE_BYTES);

    // Prime the reverse edges: both slots of x/y and of z start out free.
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);

    for (int i = 0; i < NUM_TILES; ++i) {
        const int slot = i % 2;
        GmT gA(a + coreOffset + i * TILE_ELEMS);
        GmT gB(b + coreOffset + i * TILE_ELEMS);
        GmT gOut(out + coreOffset + i * TILE_ELEMS);

        // x/y[slot] were last read by the TADD of tile i - 2.
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)slot);
        TLOAD(x[slot], gA);
        TLOAD(y[slot], gB);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)slot); // inputs of tile i are in UB

        wait_flag(PIPE_MTE2, PIPE_V, (event_t)slot);
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)slot); // z[slot] was stored by tile i - 2
        TADD(z[slot], x[slot], y[slot]);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)slot); // x/y[slot] may be reloaded
        set_flag(PIPE_V, PIPE_MTE3, (event_t)slot); // z[slot] is ready to store

        wait_flag(PIPE_V, PIPE_MTE3, (event_t)slot);
        TSTORE(gOut, z[slot]);
        set_flag(PIPE_MTE3, PIPE_V, (event_t)slot); // z[slot] may be overwritten
    }

    // Drain the reverse edges (one pending set per slot, also when the loop ran 0 times).
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
}

extern "C" __global__ AICORE void vec_add(__gm__ uint8_t *out, __gm__ uint8_t *a, __gm__ uint8_t *b)
{
#if defined(__DAV_VEC__)
    vecAddKernel<float, VEC_ADD_ROWS, VEC_ADD_COLS, VEC_ADD_TILES_PER_CORE>(
        reinterpret_cast<__gm__ float *>(out), reinterpret_cast<__gm__ float *>(a),
        reinterpret_cast<__gm__ float *>(b));
#endif
}
