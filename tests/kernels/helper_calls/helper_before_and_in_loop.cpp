// A helper called once before a loop and again inside it: only the loop's copy needs the flags
// that return its tiles to the next iteration; the helper has one text, so they are written at
// the loop's call (set after it, waited before it).
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void scale_rows(TileT &t, TileT &o, __gm__ float *src, __gm__ float *dst)
{
    GmT in(src);
    GmT out(dst);
    TLOAD(t, in);
    TADDS(o, t, 1.0f);
    TSTORE(out, o);
}

extern "C" __global__ AICORE void prologue_then_steady(__gm__ float *out, __gm__ float *in, __gm__ float *bias)
{
    TileT t;
    TileT o;
    TileT b;
    TileT s;
    scale_rows(t, o, in, out);
    for (int i = 1; i < 6; ++i) {
        GmT g(bias + i * 512);
        TLOAD(b, g);
        scale_rows(t, o, in + i * 512, out + i * 512);
        TADD(s, b, b);
        GmT r(out + 8192 + i * 512);
        TSTORE(r, s);
    }
}
