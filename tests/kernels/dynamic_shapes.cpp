// Run-time shapes: a tile whose valid region comes from a kernel argument, and GM views
// whose dynamic (-1) Shape / Stride entries are filled by constructor values, given as
// named objects, as temporaries, or copied with `=`.
#include <pto/pto-inst.hpp>

using namespace pto;

using RowsShape = Shape<1, 1, 1, -1, 64>;
using AnyShape = Shape<1, 1, 1, -1, -1>;
using LdStride = Stride<1, 1, 1, -1, 1>;
using GmRows = GlobalTensor<float, RowsShape, LdStride>;
using GmAny = GlobalTensor<float, AnyShape, LdStride>;
using DynTile = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1>;

extern "C" __global__ AICORE void dynamic_shapes(__gm__ float *out, __gm__ float *in, int rows, int ld)
{
    DynTile a(rows, 64), b(8, 8);
    RowsShape shape(rows);
    LdStride stride(ld);
    GmRows src(in, shape, stride);
    GmAny part(in + 64, AnyShape(8, 8), LdStride(ld));
    AnyShape outShape = AnyShape(rows, 64);
    GmAny dst(out, outShape, stride);
    TLOAD(a, src);
    TLOAD(b, part);
    TSTORE(dst, a);
}
