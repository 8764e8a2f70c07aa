// Cross-core TPUSH/TPOP: passed through with a located warning, the rest is lowered.
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
