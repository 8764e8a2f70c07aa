// Bad input for auto2manual: the tiles are declared in a helper template that both
// instantiations of the kernel call. They need different TASSIGN addresses (fp32 and fp16
// tiles of one shape), but the helper's lines cannot tell the kernel's instantiations apart.
#include <pto/pto-inst.hpp>
#include "acl/acl.h"

using namespace pto;

template <typename T, int ROWS, int COLS>
AICORE inline void absTile(__gm__ T *out, __gm__ T *in)
{
    using TileT = Tile<TileType::Vec, T, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using GmT = GlobalTensor<T, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    TileT src;
    TileT dst;
    GmT gIn(in);
    GmT gOut(out);
    TLOAD(src, gIn);
    TABS(dst, src);
    TSTORE(gOut, dst);
}

template <typename T>
__global__ AICORE void TAbsKernel(__gm__ T *out, __gm__ T *in)
{
    absTile<T, 16, 64>(out, in);
}

void LaunchTAbs(float *outF, float *inF, aclFloat16 *outH, aclFloat16 *inH, aclrtStream stream)
{
    TAbsKernel<float><<<1, nullptr, stream>>>(outF, inF);
    TAbsKernel<half><<<1, nullptr, stream>>>((half *)outH, (half *)inH);
}
