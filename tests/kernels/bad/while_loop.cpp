// Bad input: a while loop (loops must be counted for loops).
#include "common.hpp"

extern "C" __global__ AICORE void while_loop(__gm__ float *out, __gm__ float *in, int n)
{
    TileT x;
    int i = 0;
    while (i < n) {
        GmT src(in + i * 1024);
        TLOAD(x, src);
        i++;
    }
}
