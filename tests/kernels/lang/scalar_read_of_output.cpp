// The scalar unit reads an element of a GM argument the kernel's own TSTORE writes. The read is an
// access on PIPE_S: it runs before TMULS is issued, so nothing orders it after the store unless the
// kernel says so; reading after the store needs MTE3 -> S.
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
    set_flag(PIPE_MTE3, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_S, EVENT_ID0);
    float last = out[63];
    TADDS(x, x, last);
}
