// A hand-placed kernel with two bugs `check` must both report:
// - the scratch tile `spill` is placed at 0x2C000; its 32 KiB run to 0x34000, past the end of
//   the 192 KiB UB (a placement finding, not a refusal);
// - the TSTORE of `sum` waits for nothing: it reads `sum` while the vector pipe may still be
//   writing it (a RAW race between V and MTE3).
// The other pipes are ordered by their flags.
#include <pto/pto-inst.hpp>

using namespace pto;

using VecTile = Tile<TileType::Vec, float, 64, 128, BLayout::RowMajor, 64, 128>;
using Window = GlobalTensor<float, Shape<1, 1, 1, 64, 128>, Stride<1, 1, 1, 128, 1>>;

__global__ AICORE void scaleAndSpill(__gm__ float *out, __gm__ float *in)
{
    VecTile src;
    VecTile sum;
    VecTile spill;
    TASSIGN(src, 0x0);
    TASSIGN(sum, 0x8000);
    TASSIGN(spill, 0x2C000);
    Window gIn(in);
    Window gOut(out);

    TLOAD(src, gIn);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(sum, src, src);
    pipe_barrier(PIPE_V);
    TADD(spill, sum, src);
    TSTORE(gOut, sum);
}
