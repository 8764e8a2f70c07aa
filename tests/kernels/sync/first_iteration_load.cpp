// The tile is loaded in the first iteration only and updated in place afterwards; every
// iteration stores it. The pipes that touch x alternate from one iteration to the next.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void load_once(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    for (int i = 0; i < 4; ++i) {
        if (i == 0) {
            GmT g(in);
            TLOAD(x, g);
        } else {
            TADDS(x, x, 1.0f);
        }
        GmT o(out + i * 512);
        TSTORE(o, x);
    }
}
