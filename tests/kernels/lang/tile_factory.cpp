// Tiles made by a helper that returns a tile it constructs: with a run-time valid shape when the
// template asks for one, with the static shape otherwise.
#include <pto/pto-inst.hpp>

using namespace pto;

template <typename T, bool Dynamic>
AICORE inline T MakeTile(int rows, int cols)
{
    if constexpr (Dynamic) {
        return T(rows, cols);
    } else {
        return T();
    }
}

template <bool Dynamic>
__global__ AICORE void scale_rows(__gm__ float *out, __gm__ float *in)
{
    using Fixed = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor>;
    using Flexible = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1>;
    using T = std::conditional_t<Dynamic, Flexible, Fixed>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
    auto x = MakeTile<T, Dynamic>(6, 48);
    TASSIGN(x, 0x0);
    Gm src(in);
    Gm dst(out);
    TLOAD(x, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(x, x, 2.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}

template __global__ AICORE void scale_rows<true>(__gm__ float *out, __gm__ float *in);
template __global__ AICORE void scale_rows<false>(__gm__ float *out, __gm__ float *in);
