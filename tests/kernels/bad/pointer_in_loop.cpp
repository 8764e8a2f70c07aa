// Bad input: a GM pointer that moves to another kernel argument inside a loop (which argument
// it points into would differ per iteration).
#include "common.hpp"

extern "C" __global__ AICORE void pointer_in_loop(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    __gm__ float *p = in;
    for (int i = 0; i < 4; ++i) {
        p = p + 1024;
        if (i == 2) {
            p = out;
        }
        GmT src(p);
        TLOAD(x, src);
    }
}
