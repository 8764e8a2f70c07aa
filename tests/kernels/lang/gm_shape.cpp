// A view rebuilt with run-time shape and stride objects copied from a static view: the shape and
// strides are read back with GetShape / GetStride (by number and by GlobalTensorDim name) and the
// new view's type is spelled with decltype.
#include <pto/pto-inst.hpp>

using namespace pto;

__global__ AICORE void copy_rows(__gm__ half *out, __gm__ half *in)
{
    using Row = Tile<TileType::Vec, half, 4, 64, BLayout::RowMajor>;
    using Fixed = GlobalTensor<half, Shape<1, 1, 1, 4, 64>, Stride<1, 1, 1, 128, 1>>;
    Fixed fixed(in);
    Shape<-1, -1, -1, -1, -1> shape(fixed.GetShape(0), fixed.GetShape(1), fixed.GetShape(2),
                                    fixed.GetShape(pto::GlobalTensorDim::DIM_3), fixed.GetShape(4));
    Stride<-1, -1, -1, -1, -1> stride(fixed.GetStride(0), fixed.GetStride(1), fixed.GetStride(2),
                                      fixed.GetStride(GlobalTensorDim::DIM_3), fixed.GetStride(4));
    GlobalTensor<half, decltype(shape), decltype(stride)> src(in + 64, shape, stride);
    Fixed dst(out);
    Row x;
    TASSIGN(x, 0x0);
    TLOAD(x, src);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}
