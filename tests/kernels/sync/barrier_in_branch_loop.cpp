// A two-trip loop inside a runtime branch chains vector ops through a ring of three tiles; after
// the branch, r3[0] (read by the first trip) is overwritten. The barrier of the second trip
// already orders that read, on the only path that has it: no barrier after the branch.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void chain_in_branch(__gm__ float *out, __gm__ float *in, int mode, int n)
{
    TileT r3[3], scale, bias;
    GmT g(in);
    TLOAD(r3[0], g);
    TLOAD(scale, g);
    TLOAD(bias, g);
    if (mode != 0) {
        for (int i = 0; i < 2; i++) {
            TMUL(r3[(i + 1) % 3], scale, r3[i % 3]);
        }
    }
    TMUL(r3[0], bias, scale);
    GmT o(out);
    TSTORE(o, r3[0]);
}
