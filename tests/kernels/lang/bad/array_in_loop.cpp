// Bad input: a scalar array written at a run-time index inside a loop.
#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void array_in_loop(__gm__ float *out, int n)
{
    using TileT = Tile<TileType::Vec, float, 16, 64>;
    TileT x;
    int lens[4] = {0};
    for (int i = 0; i < 4; ++i) {
        lens[i] = n + i;
    }
    TEXPANDS(x, 1.0f);
}
