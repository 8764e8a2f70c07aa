// A helper called twice; a tile loaded between the calls is used after the second one, so its
// flag is live across that call only. The helper's flags keep one event id at both calls.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void shift_rows(TileT &t, TileT &o, __gm__ float *src, __gm__ float *dst)
{
    GmT in(src);
    GmT out(dst);
    TLOAD(t, in);
    TADDS(o, t, 1.0f);
    TSTORE(out, o);
}

extern "C" __global__ AICORE void shift_twice(__gm__ float *out, __gm__ float *in, __gm__ float *bias)
{
    TileT a;
    TileT b;
    TileT c;
    TileT d;
    TileT x;
    TileT y;
    shift_rows(a, b, in, out);
    GmT g(bias);
    TLOAD(x, g);
    shift_rows(c, d, in + 512, out + 512);
    TADD(y, x, x);
    GmT r(out + 1024);
    TSTORE(r, y);
}
