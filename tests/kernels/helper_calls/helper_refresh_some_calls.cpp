// A helper whose load runs only on some calls (a flag it is passed): the straight-line call
// passes the constant 1, which decides the helper's `if` in that copy; the loop's call passes a
// run-time value. The decided copy keeps the `if` in its place, so both copies take the same
// lines: the load's flag after the `if`, whatever the loop's calls pass.
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
