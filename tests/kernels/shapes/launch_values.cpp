// Run-time sizes passed by the file's own launches: a kernel template takes its valid shape as
// scalar arguments, and a launcher template passes its own template parameters, instantiated
// for two sizes (one kernel specialization, two launches) and one more kernel specialization.
// A second launcher passes a run-time value of its own: that launch gives no value.
#include <pto/pto-inst.hpp>

using namespace pto;

template <typename T, int kRows, int kCols>
__global__ AICORE void scale_part(__gm__ T *out, __gm__ T *in, int rows, int cols)
{
    using TileT = Tile<TileType::Vec, T, kRows, kCols, BLayout::RowMajor, -1, -1>;
    using GmT = GlobalTensor<T, Shape<1, 1, 1, -1, -1>, Stride<1, 1, 1, kCols, 1>>;
    TileT a(rows, cols);
    TileT b(rows, cols);
    TASSIGN(a, 0x0);
    TASSIGN(b, kRows * kCols * sizeof(T));
    GmT src(in, Shape<1, 1, 1, -1, -1>(rows, cols));
    GmT dst(out, Shape<1, 1, 1, -1, -1>(rows, cols));
    TLOAD(a, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(b, a, (T)2);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, b);
}

template <typename T, int kRows, int kCols, int rows, int cols>
void launch_part(T *out, T *in, void *stream)
{
    scale_part<T, kRows, kCols><<<1, nullptr, stream>>>(out, in, rows, cols);
}

template void launch_part<float, 16, 64, 16, 64>(float *, float *, void *);
template void launch_part<float, 16, 64, 9, 40>(float *, float *, void *);
template void launch_part<half, 8, 128, 8, 100>(half *, half *, void *);

void launch_any(float *out, float *in, int rows, void *stream)
{
    scale_part<float, 32, 32><<<1, nullptr, stream>>>(out, in, rows, 32);
}
