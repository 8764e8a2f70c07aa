// Bad input: a loop without a condition.
#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void endless(__gm__ float *out)
{
    using TileT = Tile<TileType::Vec, float, 16, 64>;
    TileT x;
    for (int i = 0;; ++i) {
        TEXPANDS(x, 1.0f);
    }
}
