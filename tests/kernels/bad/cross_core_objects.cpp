// A cross-core flag object used from a helper template, before any TPUSH/TPOP: the error
// points at the object's type, inside the helper.
#include <pto/pto-inst.hpp>
#include <pto/npu/a5/custom/TSync_Custom.hpp>

using namespace pto;

using TileT = Tile<TileType::Vec, float, 16, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

template <int Flag>
AICORE inline void Handshake(TileT &t, __gm__ float *out)
{
    constexpr TSync_Custom<SyncOpType::TSTORE_V2GM, SyncOpType::TLOAD> ready = {Flag};
    GmT g(out);
    TSTORE(g, t);
    ready.record();
}

template <int Flag>
__global__ AICORE void producer(__gm__ float *out, __gm__ float *in)
{
    TileT t;
    GmT g(in);
    TLOAD(t, g);
    Handshake<Flag>(t, out);
}

template __global__ AICORE void producer<3>(__gm__ float *out, __gm__ float *in);
