// The launcher instantiates the kernel template with 4 KiB fp32 tiles and with 2 KiB fp16
// tiles. One body serves both, but the second tile sits at a different UB address in each:
// the rewrite gives each instantiation its own TASSIGN line under `if constexpr`.
#include <pto/pto-inst.hpp>
#include "acl/acl.h"

using namespace pto;

template <typename T, int ROWS, int COLS>
__global__ AICORE void TNegKernel(__gm__ T *out, __gm__ T *in)
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
void LaunchTNeg(T *out, T *in, aclrtStream stream)
{
    if constexpr (std::is_same_v<T, aclFloat16>) {
        TNegKernel<half, 16, 64><<<1, nullptr, stream>>>((half *)out, (half *)in);
    } else {
        TNegKernel<T, 16, 64><<<1, nullptr, stream>>>(out, in);
    }
}

template void LaunchTNeg<float>(float *out, float *in, aclrtStream stream);
template void LaunchTNeg<aclFloat16>(aclFloat16 *out, aclFloat16 *in, aclrtStream stream);
