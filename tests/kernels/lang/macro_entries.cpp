// One kernel entry per case, each written by a macro use that pastes the case number into the
// entry's name and forwards to the kernel template with a cast argument.
#include <pto/pto-inst.hpp>

using namespace pto;

template <int Rows, int Cols>
AICORE void ScaleCase(__gm__ float *out, __gm__ float *in, float scale)
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
    TMULS(x, x, scale);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}

#define SCALE_CASE(N, R, C)                                                                  \
    extern "C" __global__ AICORE void scaleCase##N(__gm__ uint8_t *out, __gm__ float *in,    \
                                                   float scale)                              \
    {                                                                                        \
        ScaleCase<R, C>((__gm__ float *)out, in, scale);                                     \
    }

SCALE_CASE(1, 4, 64)
SCALE_CASE(2, 8, 128)
