// Cross-core TPUSH/TPOP: the kernel stops with a located error at the first one.
#include "common.hpp"

extern "C" __global__ AICORE void cross_core(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    GmT src(in);
    GmT dst(out);
    TLOAD(x, src);
    TPUSH(x, dst);
    TPOP(x, src);
    TSTORE(dst, x);
}
