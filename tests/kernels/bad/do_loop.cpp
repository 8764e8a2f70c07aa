// Bad input: a do loop (for and while loops are read; do loops are not).
#include "common.hpp"

extern "C" __global__ AICORE void do_loop(__gm__ float *out, __gm__ float *in, int n)
{
    TileT x;
    int i = 0;
    do {
        GmT src(in + i * 1024);
        TLOAD(x, src);
        i++;
    } while (i < n);
}
