// Bad input: a GlobalTensor moved by TASSIGN inside a loop and then used after the loop.
#include "common.hpp"

extern "C" __global__ AICORE void view_used_after_loop(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    GmT dst(out);
    for (int i = 0; i < 4; ++i) {
        TASSIGN(dst, out + i * 1024);
        TSTORE(dst, x);
    }
    TSTORE(dst, x); // after the loop: which iteration's view?
}
