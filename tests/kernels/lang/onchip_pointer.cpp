// A pointer into UB taken from a tile places a second tile right after the first.
#include <pto/pto-inst.hpp>

using namespace pto;

__global__ AICORE void two_rows(__gm__ float *out, __gm__ float *in)
{
    using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;
    Row x;
    Row y;
    TASSIGN(x, 0x100);
    __ubuf__ float *after = x.data() + 64;
    TASSIGN(y, (uint64_t)after);
    Gm src(in);
    Gm dst(out);
    TLOAD(x, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADDS(y, x, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, y);
}
