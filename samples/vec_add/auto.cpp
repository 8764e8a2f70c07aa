// vec_add (AUTO mode): out = a + b, elementwise, fp32.
//
// Every core (block) owns NUM_TILES consecutive ROWS x COLS tiles of the flattened
// inputs; the core's start offset comes from get_block_idx(). Inputs and the result
// are double buffered with tile arrays indexed by i % 2, so the load of tile i + 1 can
// overlap the add and the store of tile i. The compiler places the tiles and inserts
// the pipe synchronisation.
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

    // SPMD split: block b works on elements [b * CORE_ELEMS, (b + 1) * CORE_ELEMS).
    const int64_t coreOffset = static_cast<int64_t>(get_block_idx()) * CORE_ELEMS;

    TileT x[2];
    TileT y[2];
    TileT z[2];

    for (int i = 0; i < NUM_TILES; ++i) {
        const int slot = i % 2;
        GmT gA(a + coreOffset + i * TILE_ELEMS);
        GmT gB(b + coreOffset + i * TILE_ELEMS);
        GmT gOut(out + coreOffset + i * TILE_ELEMS);

        TLOAD(x[slot], gA);
        TLOAD(y[slot], gB);
        TADD(z[slot], x[slot], y[slot]);
        TSTORE(gOut, z[slot]);
    }
}

extern "C" __global__ AICORE void vec_add(__gm__ uint8_t *out, __gm__ uint8_t *a, __gm__ uint8_t *b)
{
#if defined(__DAV_VEC__)
    vecAddKernel<float, VEC_ADD_ROWS, VEC_ADD_COLS, VEC_ADD_TILES_PER_CORE>(
        reinterpret_cast<__gm__ float *>(out), reinterpret_cast<__gm__ float *>(a),
        reinterpret_cast<__gm__ float *>(b));
#endif
}
