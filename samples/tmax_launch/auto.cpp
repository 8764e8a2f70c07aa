// tmax_launch (AUTO mode): out = max(a, b), elementwise, in the shape of pto-isa's kernel
// files: a template __global__ kernel, a host launcher that starts it with
// <<<blocks, l2ctrl, stream>>> and hands aclFloat16 data on as half (std::is_same_v
// dispatch), and explicit instantiations of the launcher for what the host code uses.
//
// Every block owns TMAX_TILES_PER_BLOCK consecutive ROWS x COLS tiles; inputs and the result
// are double buffered with tile arrays indexed by i % 2. Both instantiations use 8 KiB
// tiles (fp32 32x64, fp16 32x128), so one placement and one set of flags serves both.
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
    const int64_t blockOffset = static_cast<int64_t>(get_block_idx()) * TMAX_TILES_PER_BLOCK * TILE_ELEMS;

    TileT x[2];
    TileT y[2];
    TileT z[2];
    for (int i = 0; i < TMAX_TILES_PER_BLOCK; ++i) {
        const int slot = i % 2;
        GmT gA(a + blockOffset + i * TILE_ELEMS);
        GmT gB(b + blockOffset + i * TILE_ELEMS);
        GmT gOut(out + blockOffset + i * TILE_ELEMS);
        TLOAD(x[slot], gA);
        TLOAD(y[slot], gB);
        TMAX(z[slot], x[slot], y[slot]);
        TSTORE(gOut, z[slot]);
    }
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
