// An AUTO vector kernel whose work is a helper of a header beside it: every block of a row is
// loaded, scaled and stored by scaleBlock (scale_rows.hpp), which the rewrite must edit too.
#include <pto/pto-inst.hpp>
#include "scale_rows.hpp"

using namespace pto;

constexpr int ROWS = 16;
constexpr int COLS = 64;
constexpr int BLOCKS = 4;

extern "C" __global__ AICORE void scale_rows(__gm__ float *out, __gm__ float *in)
{
    using Gm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    using TileT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    TileT tile;
    TASSIGN(tile, 0x0);  // UB 4 KiB
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // prime: tile free at start (MTE3 -> MTE2)
    for (int b = 0; b < BLOCKS; b++) {
        Gm src(in + b * ROWS * COLS);
        Gm dst(out + b * ROWS * COLS);
        scaleBlock(dst, src, tile, 2.0f);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // drain: tile (MTE3 -> MTE2)
}
