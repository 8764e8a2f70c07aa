// The scalar unit reads a loaded scale through a pointer to the tile's start (`p[0]`, the pointer
// taken through a reference to `s.data()`), as `t.GetValue(0)` would: the read waits for the load
// only with an MTE2 -> S flag.
#include <pto/pto-inst.hpp>

using namespace pto;

template <bool kOrdered>
__global__ AICORE void scale_by_first(__gm__ float *out, __gm__ float *in, __gm__ float *scales)
{
    using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;
    Row x;
    Row s;
    TASSIGN(x, 0x0);
    TASSIGN(s, 0x100);
    Gm src(in);
    Gm sc(scales);
    Gm dst(out);
    TLOAD(s, sc);
    TLOAD(x, src);
    auto &raw = s.data();
    __ubuf__ const float *first = (__ubuf__ const float *)raw;
    if constexpr (kOrdered) {
        set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    }
    float scale = first[0];
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(x, x, scale);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}

template __global__ AICORE void scale_by_first<true>(__gm__ float *, __gm__ float *, __gm__ float *);
template __global__ AICORE void scale_by_first<false>(__gm__ float *, __gm__ float *, __gm__ float *);
