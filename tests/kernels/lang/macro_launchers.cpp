// Each case is written by one macro use that defines both the kernel entry and the host function
// launching it with `<<<...>>>`; a third macro forwards to the first with a square shape, a fourth
// uses the first two. Only the `__global__` functions are kernels; the launchers are host code.
#include <pto/pto-inst.hpp>

using namespace pto;

template <int Rows, int Cols>
AICORE void AddOne(__gm__ float *out, __gm__ float *in)
{
    using T = Tile<TileType::Vec, float, Rows, Cols, BLayout::RowMajor>;
    using G = GlobalTensor<float, Shape<1, 1, 1, Rows, Cols>, Stride<1, 1, 1, Cols, 1>>;
    T x;
    TASSIGN(x, 0x0);
    G src(in);
    G dst(out);
    TLOAD(x, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADDS(x, x, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}

#define ADD_ONE_CASE(NAME, R, C)                                                    \
    extern "C" __global__ AICORE void addOne_##NAME(__gm__ float *out, __gm__ float *in) \
    {                                                                               \
        AddOne<R, C>(out, in);                                                      \
    }                                                                               \
    void LaunchAddOne_##NAME(float *out, float *in, void *stream)                   \
    {                                                                               \
        addOne_##NAME<<<1, nullptr, stream>>>(out, in);                             \
    }

#define ADD_ONE_BYTES(NAME, R, C)                                                   \
    extern "C" __global__ AICORE void addOneBytes_##NAME(__gm__ uint8_t *out, __gm__ float *in) \
    {                                                                               \
        AddOne<R, C>((__gm__ float *)out, in);                                      \
    }                                                                               \
    void LaunchAddOneBytes_##NAME(uint8_t *out, float *in, void *stream)            \
    {                                                                               \
        addOneBytes_##NAME<<<1, nullptr, stream>>>(out, in);                        \
    }

#define ADD_ONE_SQUARE(NAME, S) ADD_ONE_CASE(NAME, S, S)
#define ADD_ONE_BOTH(NAME, R, C) ADD_ONE_CASE(NAME, R, C) ADD_ONE_BYTES(NAME, R, C)

ADD_ONE_CASE(wide, 4, 64)
ADD_ONE_BYTES(narrow, 8, 32)
ADD_ONE_SQUARE(square, 16)
ADD_ONE_BOTH(both, 2, 128)
