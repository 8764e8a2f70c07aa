// Bad input: an unknown instruction in a plain function.
#include "common.hpp"

extern "C" __global__ AICORE void unknown_plain(__gm__ float *out, __gm__ float *in)
{
    TileT a, b;
    GmT src(in);
    TLOAD(a, src);
    TFOOBAR(b, a);
}
