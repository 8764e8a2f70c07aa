// An AUTO vector kernel for the CMake build-step tests: each tile of `in` is loaded, scaled by
// two and stored, with the tiles double buffered. Its sizes come from a local header.
#include <pto/pto-inst.hpp>

#include "row_scale.h"

using namespace pto;

extern "C" __global__ AICORE void row_scale(__gm__ float *out, __gm__ float *in)
{
    using TileT = Tile<TileType::Vec, float, ROW_SCALE_ROWS, ROW_SCALE_COLS>;
    using GmT = GlobalTensor<float, Shape<1, 1, 1, ROW_SCALE_ROWS, ROW_SCALE_COLS>,
                             Stride<1, 1, 1, ROW_SCALE_COLS, 1>>;
    constexpr int TILE_ELEMS = ROW_SCALE_ROWS * ROW_SCALE_COLS;
    TileT src[2];
    TileT dst[2];
    for (int i = 0; i < ROW_SCALE_TILES; ++i) {
        GmT gIn(in + i * TILE_ELEMS);
        GmT gOut(out + i * TILE_ELEMS);
        TLOAD(src[i % 2], gIn);
        TMULS(dst[i % 2], src[i % 2], 2.0f);
        TSTORE(gOut, dst[i % 2]);
    }
}
