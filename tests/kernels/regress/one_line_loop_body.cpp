// A loop body written on the loop header's line: its barrier must be inside the loop.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void one_line_loop_body(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    GmT g(in);
    GmT o(out);
    TLOAD(x, g);
    for (int i = 0; i < 4; ++i) { TADDS(x, x, 1.0f); }
    TSTORE(o, x);
}
