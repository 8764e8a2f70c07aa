// tmax_launch (manual mode): out = max(a, b), elementwise; the hand-written twin of auto.cpp.
//
// Same kernel template, launcher and instantiations; every tile is bound to a UB address
// and the pipes are ordered explicitly. The addresses are expressions of the template's
// parameters, so each instantiation gets its own placement from one source.
//
// UB map (TILE_BYTES = ROWS * COLS * sizeof(T), 8 KiB for both instantiations):
//   x[0], x[1]  at 0, 1 x TILE_BYTES   (input a)
//   y[0], y[1]  at 2, 3 x TILE_BYTES   (input b)
//   z[0], z[1]  at 4, 5 x TILE_BYTES   (result)
//
// Per tile i (slot = i % 2, event id = slot): MTE2 loads x/y[slot] -> V computes z[slot] ->
// MTE3 stores it. The buffer-free edges V->MTE2 (x/y[slot] read) and MTE3->V (z[slot]
// stored) let tile i + 2 reuse the slot; they are set once per slot before the loop and
// waited once per slot after it.
#include <pto/pto-inst.hpp>
#include "acl/acl.h"

using namespace pto;

// Tiles per block: override with -DTMAX_TILES_PER_BLOCK=... (any count >= 0).
#ifndef TMAX_TILES_PER_BLOCK
#define TMAX_TILES_PER_BLOCK 8
#endif
static_assert(TMAX_TILES_PER_BLOCK >= 0, "the tile count must not be negative");

template <typename T, int ROWS, int COLS>
__global__ AICORE void TMaxKernel(__gm__ T *out, __gm__ T *a, __gm__ T *b)
{
    using TileT = Tile<TileType::Vec, T, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using GmT = GlobalTensor<T, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    constexpr int TILE_ELEMS = ROWS * COLS;
    constexpr uint32_t TILE_BYTES = TILE_ELEMS * sizeof(T);
    static_assert(6 * TILE_BYTES <= 0x2E000, "six tiles must fit below 184 KiB of UB");
    const int64_t blockOffset = static_cast<int64_t>(get_block_idx()) * TMAX_TILES_PER_BLOCK * TILE_ELEMS;

    TileT x[2];
    TASSIGN(x[0], 0 * TILE_BYTES);
    TASSIGN(x[1], 1 * TILE_BYTES);
    TileT y[2];
    TASSIGN(y[0], 2 * TILE_BYTES);
    TASSIGN(y[1], 3 * TILE_BYTES);
    TileT z[2];
    TASSIGN(z[0], 4 * TILE_BYTES);
    TASSIGN(z[1], 5 * TILE_BYTES);

    // Every slot starts out free.
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);

    for (int i = 0; i < TMAX_TILES_PER_BLOCK; ++i) {
        const int slot = i % 2;
        GmT gA(a + blockOffset + i * TILE_ELEMS);
        GmT gB(b + blockOffset + i * TILE_ELEMS);
        GmT gOut(out + blockOffset + i * TILE_ELEMS);

        wait_flag(PIPE_V, PIPE_MTE2, (event_t)slot); // the TMAX of tile i - 2 has read x/y[slot]
        TLOAD(x[slot], gA);
        TLOAD(y[slot], gB);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)slot); // x/y[slot] hold tile i

        wait_flag(PIPE_MTE2, PIPE_V, (event_t)slot);
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)slot); // the store of tile i - 2 has read z[slot]
        TMAX(z[slot], x[slot], y[slot]);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)slot); // x/y[slot] may be loaded again
        set_flag(PIPE_V, PIPE_MTE3, (event_t)slot); // z[slot] holds the result of tile i

        wait_flag(PIPE_V, PIPE_MTE3, (event_t)slot);
        TSTORE(gOut, z[slot]);
        set_flag(PIPE_MTE3, PIPE_V, (event_t)slot); // z[slot] may be written again
    }

    // One set per slot and edge is still pending (also when the loop ran zero times).
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
}

// Host side: aclFloat16 is the host's 16-bit float type; the kernel computes in half.
template <typename T, int ROWS, int COLS>
void LaunchTMax(T *out, T *a, T *b, uint32_t blocks, aclrtStream stream)
{
    if constexpr (std::is_same_v<T, aclFloat16>) {
        TMaxKernel<half, ROWS, COLS><<<blocks, nullptr, stream>>>((half *)out, (half *)a, (half *)b);
    } else {
        TMaxKernel<T, ROWS, COLS><<<blocks, nullptr, stream>>>(out, a, b);
    }
}

template void LaunchTMax<float, 32, 64>(float *out, float *a, float *b, uint32_t blocks, aclrtStream stream);
template void LaunchTMax<aclFloat16, 32, 128>(aclFloat16 *out, aclFloat16 *a, aclFloat16 *b, uint32_t blocks,
                                              aclrtStream stream);
