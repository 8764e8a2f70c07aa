// `__fp16` as the device compiler knows it: an element type of tiles and GM pointers, a value
// passed to and returned from functions (a tile's scalar accessors, a tile-scalar instruction).
#include <pto/pto-inst.hpp>

using namespace pto;

template <typename T>
AICORE inline void scale_rows(__gm__ T *out, __gm__ T *in, T factor)
{
    using TileT = Tile<TileType::Vec, T, 16, 16, BLayout::RowMajor, 16, 16>;
    using GmT = GlobalTensor<T, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
    TileT a;
    TileT b;
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x200);
    GmT src(in);
    GmT dst(out);
    TLOAD(a, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(b, a, factor);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, b);
}

extern "C" __global__ AICORE void fp16_scalars(__gm__ __fp16 *out, __gm__ __fp16 *in)
{
    scale_rows<__fp16>(out, in, (__fp16)0.5f);
}
