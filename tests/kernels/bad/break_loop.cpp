// Bad input: break out of a counted loop.
#include "common.hpp"

extern "C" __global__ AICORE void break_loop(__gm__ float *out, __gm__ float *in, int stopAt)
{
    TileT x;
    for (int i = 0; i < 8; ++i) {
        if (i == stopAt) {
            break;
        }
        GmT src(in + i * 1024);
        TLOAD(x, src);
    }
}
