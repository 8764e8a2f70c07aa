// A scale passed as the bits of a float in an integer argument, read back through a pointer cast.
#include <pto/pto-inst.hpp>

using namespace pto;

__global__ AICORE void scale_by_bits(__gm__ float *out, __gm__ float *in, int32_t scaleBits)
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
    float scale = *reinterpret_cast<float *>(&scaleBits);
    TMULS(x, x, scale);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}
