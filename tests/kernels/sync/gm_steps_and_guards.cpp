// Row stores (8 floats) from loops whose variable never takes the value that would reach the
// whole-block store after them: a loop by twos (blocks 0, 2 and 4, 16 floats in), a runtime
// number of stores to every other block (0, 2, 4, ..., 8 floats in), and a loop to 2 whose store is
// guarded by `i % 2 == 1` (block 1 at i = 1 only, never block 0). Block 1 of `out` and block 0
// of `side` are stored after them and meet none of those rows, so no MTE3 barrier orders them.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using RowT = Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor, 8, 1>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
using GmRow = GlobalTensor<float, Shape<1, 1, 1, 8, 1>, Stride<1, 1, 1, 1, 1>>;
constexpr int E = 512;
extern "C" __global__ AICORE void steps_and_guards(__gm__ float *out, __gm__ float *side, int n)
{
    TileT x;
    RowT r;
    TEXPANDS(x, 1.0f);
    TEXPANDS(r, 2.0f);
    for (int i = 0; i < 5; i += 2) {
        GmRow row(out + (i + 0) * E + 16);
        TSTORE(row, r);
    }
    for (int i = 0; i < n; ++i) {
        GmRow every_other(out + (2 * i) * E + 8);
        TSTORE(every_other, r);
    }
    GmT one(out + 1 * E);
    TSTORE(one, x);
    for (int i = 0; i < 2; i++) {
        if (i % 2 == 1) {
            GmRow row(side + (i + 0) * E + 8);
            TSTORE(row, r);
        }
    }
    GmT first(side);
    TSTORE(first, x);
}
