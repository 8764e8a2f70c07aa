// A helper whose load runs only on some calls (a run-time flag it is passed): in a loop its
// copy waits for the load under that condition, at the straight-line call for nothing; the
// guarded lines cannot be one text yet (a located error).
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void maybe_refresh(int fresh, TileT &t, TileT &o, __gm__ float *src, __gm__ float *dst)
{
    GmT in(src);
    GmT out(dst);
    if (fresh != 0) {
        TLOAD(t, in);
    }
    TADDS(o, t, 1.0f);
    TSTORE(out, o);
}

extern "C" __global__ AICORE void refresh_some(__gm__ float *out, __gm__ float *in, int period)
{
    TileT t;
    TileT o;
    maybe_refresh(1, t, o, in, out);
    for (int i = 1; i < 6; ++i) {
        maybe_refresh(i % period == 0, t, o, in + i * 512, out + i * 512);
    }
}
