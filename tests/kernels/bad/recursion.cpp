// Bad input: a helper that calls itself (the front end inlines helpers, so it cannot).
#include "common.hpp"

template <int N>
AICORE void accumulate(TileT &acc, TileT &x, int depth)
{
    TADD(acc, acc, x);
    if (depth > 0) {
        accumulate<N>(acc, x, depth - 1);
    }
}

extern "C" __global__ AICORE void recursion(__gm__ float *out, __gm__ float *in, int depth)
{
    TileT acc, x;
    GmT src(in);
    TLOAD(x, src);
    TEXPANDS(acc, 0.0f);
    accumulate<0>(acc, x, depth);
}
