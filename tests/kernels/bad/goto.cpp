// Bad input: goto.
#include "common.hpp"

extern "C" __global__ AICORE void goto_kernel(__gm__ float *out, __gm__ float *in, int skip)
{
    TileT x;
    GmT src(in);
    GmT dst(out);
    TLOAD(x, src);
    if (skip) {
        goto done;
    }
    TMULS(x, x, 2.0f);
done:
    TSTORE(dst, x);
}
