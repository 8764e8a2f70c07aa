// The scalar unit reads one element of a loaded tile to use as the scale of the other: the
// load is ordered before the read by a flag to PIPE_S.
#include <pto/pto-inst.hpp>

using namespace pto;

__global__ AICORE void scale_by_first(__gm__ float *out, __gm__ float *in, __gm__ float *factors)
{
    using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;
    Row x;
    Row f;
    TASSIGN(x, 0x0);
    TASSIGN(f, 0x100);
    Gm src(in);
    Gm fac(factors);
    Gm dst(out);
    TLOAD(x, src);
    TLOAD(f, fac);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    float scale = f.GetValue(0);
    TMULS(x, x, scale);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}
