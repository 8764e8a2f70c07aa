// A kernel template over a byte-sized mode: clang spells the instantiation's argument as a
// character literal (`(unsigned char)'\x01'`), which the front end reads as the number it is.
#include <pto/pto-inst.hpp>

using namespace pto;

template <uint8_t Mode>
__global__ AICORE void add_mode(__gm__ float *out, __gm__ float *in)
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
    if constexpr (Mode == 1) {
        TADDS(x, x, 1.0f);
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}

template __global__ AICORE void add_mode<1>(__gm__ float *out, __gm__ float *in);
template __global__ AICORE void add_mode<'A'>(__gm__ float *out, __gm__ float *in);
