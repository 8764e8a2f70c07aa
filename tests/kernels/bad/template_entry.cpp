// Bad input: the only __global__ function is a template that nothing in the file
// instantiates (no explicit instantiation, no launch), so there is no argument list to
// analyse it with; --entry 'TemplatedEntry<4>' would name one.
#include "common.hpp"

template <int TILES>
__global__ AICORE void TemplatedEntry(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    for (int i = 0; i < TILES; ++i) {
        GmT src(in + i * 1024);
        GmT dst(out + i * 1024);
        TLOAD(x, src);
        TSTORE(dst, x);
    }
}
