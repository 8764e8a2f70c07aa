// The scalar unit reads back an element the kernel's own TSTORE writes: the scalar read is no pipe
// instruction, so the race check could not see it; the front end refuses it.
#include <pto/pto-inst.hpp>

using namespace pto;

__global__ AICORE void read_back(__gm__ float *out, __gm__ float *in)
{
    using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;
    Row x;
    TASSIGN(x, 0x0);
    Gm src(in);
    Gm dst(out);
    TLOAD(x, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(x, x, out[3]);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}
