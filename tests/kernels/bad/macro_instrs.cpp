// Bad input: a function-like macro that expands to several PTO instructions.
#include "common.hpp"

#define LOAD_AND_SCALE(t, g, s) \
    TLOAD(t, g);                \
    TMULS(t, t, s)

extern "C" __global__ AICORE void macro_instrs(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    GmT src(in);
    GmT dst(out);
    LOAD_AND_SCALE(x, src, 2.0f);
    TSTORE(dst, x);
}
