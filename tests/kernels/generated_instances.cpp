// A kernel template instantiated only through a header the build generates: the launcher is
// instantiated once per case of an X-macro from "instance_list.h", which is found with
// -I tests/kernels/generated. Without that directory the file does not parse.
#include <pto/pto-inst.hpp>
#include "acl/acl.h"

using namespace pto;

template <int ROWS, int COLS>
__global__ AICORE void TExpKernel(__gm__ float *out, __gm__ float *in)
{
    using TileT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using GmT = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    TileT x;
    GmT src(in);
    GmT dst(out);
    TLOAD(x, src);
    TEXP(x, x);
    TSTORE(dst, x);
}

template <int ROWS, int COLS>
void LaunchTExp(float *out, float *in, aclrtStream stream)
{
    constexpr uint32_t blocks = 4;
    TExpKernel<ROWS, COLS><<<blocks, nullptr, stream>>>(out, in);
}

#include "instance_list.h"

#define INSTANTIATE_TEXP(ROWS, COLS) template void LaunchTExp<ROWS, COLS>(float *out, float *in, aclrtStream stream);
FOR_EACH_SCALE_CASE(INSTANTIATE_TEXP)
#undef INSTANTIATE_TEXP
