// The scalar unit stores into the buffer the kernel's TLOAD reads: the store is no pipe
// instruction, so the race check could not see it; the front end refuses it.
#include <pto/pto-inst.hpp>

using namespace pto;

__global__ AICORE void store_to_input(__gm__ float *out, __gm__ float *in)
{
    using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;
    Row x;
    TASSIGN(x, 0x0);
    Gm src(in);
    Gm dst(out);
    in[0] = 0.0f;
    TLOAD(x, src);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}
