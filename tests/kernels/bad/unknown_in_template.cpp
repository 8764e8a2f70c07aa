// Bad input: an unknown instruction inside a template. Its operands are dependent, so clang
// only rejects it when the entry instantiates the template; the error points into the template.
#include <pto/pto-inst.hpp>

using namespace pto;

template <typename T>
AICORE void body(__gm__ T *in)
{
    using TileT = Tile<TileType::Vec, T, 16, 64, BLayout::RowMajor, 16, 64>;
    using GmT = GlobalTensor<T, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
    TileT a, b;
    GmT src(in);
    TLOAD(a, src);
    TFOOBAR(b, a);
}

extern "C" __global__ AICORE void unknown_in_template(__gm__ float *out, __gm__ float *in)
{
    body<float>(in);
}
