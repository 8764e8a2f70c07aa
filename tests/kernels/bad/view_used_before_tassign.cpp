// Bad input: a GlobalTensor read in a loop before the TASSIGN that moves it, i.e. the view
// of the previous iteration (a loop-carried GM view the front end does not model).
#include "common.hpp"

extern "C" __global__ AICORE void view_used_before_tassign(__gm__ float *in)
{
    TileT x;
    GmT src(in);
    for (int i = 0; i < 4; ++i) {
        TLOAD(x, src);
        TASSIGN(src, in + (i + 1) * 1024);
    }
}
