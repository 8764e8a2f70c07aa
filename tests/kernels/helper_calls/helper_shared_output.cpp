// A helper called twice writing the same output tile: the second call overwrites it only after
// the first call's store has read it, ordered at the callers (the helper's lines stay one text).
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
AICORE inline void stage(TileT &t, TileT &o, GmT &src, GmT &dst)
{
    TLOAD(t, src);
    TADDS(o, t, 1.0f);
    TSTORE(dst, o);
}
extern "C" __global__ AICORE void twice(__gm__ float *out, __gm__ float *in)
{
    TileT a;
    TileT b;
    TileT c;
    GmT g0(in);
    GmT g1(in + 512);
    GmT o0(out);
    GmT o1(out + 512);
    stage(a, b, g0, o0);
    stage(c, b, g1, o1);
}
