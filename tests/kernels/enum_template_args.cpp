// A kernel template whose parameter is one of pto's unscoped enums. clang names the argument
// `pto::TILE_LEFT_RIGHT`; the kernel compares it with `TileSplitAxis::TILE_LEFT_RIGHT`.
#include <pto/pto-inst.hpp>
#include "acl/acl.h"

using namespace pto;

template <TileSplitAxis AXIS>
__global__ AICORE void TSplitKernel(__gm__ float *out, __gm__ float *in)
{
    using TileT = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 8, 64>;
    using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
    TileT x;
    GmT src(in);
    GmT dst(out);
    TLOAD(x, src);
    if constexpr (AXIS == TileSplitAxis::TILE_LEFT_RIGHT) {
        TABS(x, x);
    } else {
        TEXP(x, x);
    }
    TSTORE(dst, x);
}

void LaunchSplits(float *out, float *in, aclrtStream stream)
{
    TSplitKernel<TILE_UP_DOWN><<<1, nullptr, stream>>>(out, in);
    TSplitKernel<TILE_LEFT_RIGHT><<<1, nullptr, stream>>>(out, in);
}
