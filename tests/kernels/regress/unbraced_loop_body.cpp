// A loop body without braces that needs a barrier before its one statement: the barrier must
// go inside the loop (with braces added), or TADDS runs once.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void unbraced_loop_body(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    TileT y;
    GmT g(in);
    GmT o(out);
    TLOAD(x, g);
    for (int i = 0; i < 4; ++i)
        TADDS(x, x, 1.0f);
    TSTORE(o, x);
}
