// Row maxima subtracted over a run-time number of columns (AUTO mode, a2a3 vector core). Whether
// pto-isa's TROWMAX issues its closing pipe_barrier(PIPE_V) depends on the width: with a scratch
// tile narrower than 256 bytes a row, a row of one to two 256-byte repeats (65 to 127 floats)
// returns before doing anything. The rewrite cannot know `cols`, so with SCRATCH_COLS = 32
// (128 bytes) it keeps a barrier before TROWEXPANDSUB; with 64 (256 bytes) TROWMAX always
// issues its barrier and none is added.
#include <pto/pto-inst.hpp>

using namespace pto;

#ifndef SCRATCH_COLS
#define SCRATCH_COLS 32
#endif

extern "C" __global__ AICORE void row_max_runtime_width(__gm__ float *out, __gm__ float *in, int cols)
{
#if defined(__DAV_VEC__)
    using TileT = Tile<TileType::Vec, float, 16, 128, BLayout::RowMajor, 16, -1>;
    using ColT = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, 16, 1>;
    using ScratchT = Tile<TileType::Vec, float, 16, SCRATCH_COLS, BLayout::RowMajor, 16, SCRATCH_COLS>;
    using RowsShape = Shape<1, 1, 1, 16, -1>;
    using GmT = GlobalTensor<float, RowsShape, Stride<1, 1, 1, 128, 1>>;
    TileT x(cols);
    TileT y(cols);
    ScratchT tmp;
    ColT rowMax;
    GmT gIn(in, RowsShape(cols));
    GmT gOut(out, RowsShape(cols));
    TLOAD(x, gIn);
    TROWMAX(rowMax, x, tmp);
    TROWEXPANDSUB(y, x, rowMax);
    TSTORE(gOut, y);
#endif
}
