// Bad input: a missing ';' (clang reports it).
#include "common.hpp"

extern "C" __global__ AICORE void syntax_error(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    GmT src(in)
    TLOAD(x, src);
}
