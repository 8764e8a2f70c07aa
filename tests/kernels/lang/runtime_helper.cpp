// A value helper with a loop, called with a run-time length: it runs where it is called.
#include <pto/pto-inst.hpp>
using namespace pto;
AICORE inline int Halvings(int n)
{
    int k = 0;
    for (; n > 1; n /= 2) {
        k++;
    }
    return k;
}
extern "C" __global__ AICORE void runtime_helper(__gm__ float *out, int n)
{
    using TileT = Tile<TileType::Vec, float, 16, 64>;
    TileT x;
    int steps = Halvings(n);
    for (int i = 0; i < steps; ++i) {
        TEXPANDS(x, 1.0f);
    }
}
