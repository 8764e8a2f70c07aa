// a5's element interleave and its inverse, each with two destinations: two rows of 16 floats
// are zipped into two tiles, then split back.
#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void zip_unzip(__gm__ float *out0, __gm__ float *out1, __gm__ float *in0,
                                            __gm__ float *in1)
{
#if defined(__DAV_VEC__)
    using T = Tile<TileType::Vec, float, 2, 16, BLayout::RowMajor, 2, 16>;
    using G = GlobalTensor<float, Shape<1, 1, 1, 2, 16>, Stride<1, 1, 1, 16, 1>>;
    G in0Global(in0), in1Global(in1), out0Global(out0), out1Global(out1);
    T a, b, lo, hi, even, odd;
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x80);
    TASSIGN(lo, 0x100);
    TASSIGN(hi, 0x180);
    TASSIGN(even, 0x200);
    TASSIGN(odd, 0x280);
    TLOAD(a, in0Global);
    TLOAD(b, in1Global);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TINTERLEAVE(hi, lo, b, a);
    TDEINTERLEAVE(odd, even, hi, lo);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(out0Global, even);
    TSTORE(out1Global, odd);
#endif
}
