// 2-D shapes and strides with one extent fixed by the template and one left dynamic, built with
// the two-value constructor (rows, cols) as pto-isa's GEMM kernels build a panel's view of a
// K-major matrix whose row length is a kernel argument: only the entries the template leaves
// dynamic take the values.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int kRows = 16;
constexpr int kCols = 64;
using Panel = Tile<TileType::Vec, float, kRows, kCols, BLayout::RowMajor, kRows, kCols>;
using PanelShape = TileShape2D<float, kRows, kCols, Layout::ND>;
using RowMajorStride = BaseShape2D<float, kRows, DYNAMIC, Layout::ND>;
using ColMajorStride = BaseShape2D<float, DYNAMIC, kCols, Layout::DN>;
using RowsShape = TileShape2D<float, DYNAMIC, kCols, Layout::ND>;

extern "C" __global__ AICORE void two_value_strides(__gm__ float *a, __gm__ float *b, __gm__ float *c, int rowLen)
{
    Panel x;
    TASSIGN(x, 0x0);
    RowMajorStride byRows(kRows, rowLen);
    ColMajorStride byCols(rowLen, kCols);
    RowsShape rows(kRows, kCols);
    GlobalTensor<float, PanelShape, RowMajorStride, Layout::ND> ga(a, PanelShape(), byRows);
    GlobalTensor<float, PanelShape, ColMajorStride, Layout::DN> gb(b, PanelShape(), byCols);
    GlobalTensor<float, RowsShape, RowMajorStride, Layout::ND> gc(c, rows, byRows);
    TLOAD(x, ga);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(gb, x);
    TSTORE(gc, x);
}
