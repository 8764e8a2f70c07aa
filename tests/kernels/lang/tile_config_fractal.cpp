// A Tile whose fractal size is named through pto's TileConfig, and whose pad value is chosen by
// a constexpr local from a template parameter.
#include <pto/pto-inst.hpp>
using namespace pto;

#define FILL_NONE (-1)

template <typename T, int R, int C, int fill>
__global__ AICORE void fill_rows(__gm__ T *out, float scalar)
{
    constexpr PadValue pad = (fill == FILL_NONE) ? PadValue::Null : PadValue::Max;
    using Rows = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, -1, -1, SLayout::NoneBox, TileConfig::fractalABSize, pad>;
    Rows rows(R, C);
    TASSIGN(rows, 0x0);
    TEXPANDS(rows, scalar);
    GlobalTensor<T, Shape<1, 1, 1, R, C>, Stride<1, 1, 1, C, 1>> dst(out);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, rows);
}

template __global__ AICORE void fill_rows<float, 16, 64, FILL_NONE>(__gm__ float *out, float scalar);
template __global__ AICORE void fill_rows<float, 8, 32, 1>(__gm__ float *out, float scalar);
