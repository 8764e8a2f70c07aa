// Bad input: an instruction-like function that clang accepts (it is declared) but that is
// not a PTO instruction ptorewrite knows; the front end itself must reject it.
#include "common.hpp"

template <typename D, typename S>
AICORE void TFOOBAR(D &dst, S &src);

template <int N>
AICORE void body(__gm__ float *in)
{
    TileT a, b;
    GmT src(in);
    TLOAD(a, src);
    TFOOBAR(b, a);
}

extern "C" __global__ AICORE void unknown_declared(__gm__ float *out, __gm__ float *in)
{
    body<1>(in);
}
