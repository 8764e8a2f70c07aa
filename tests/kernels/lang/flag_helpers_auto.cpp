// The AUTO-mode twin of flag_helpers_manual.cpp.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void accumulate(__gm__ float *out, __gm__ float *in)
{
    using TileT = Tile<TileType::Vec, float, 16, 64>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
    TileT inTile[2];
    TileT acc;
    TEXPANDS(acc, 0.0f);
    for (int i = 0; i < 6; ++i) {
        Gm src(in + i * 16 * 64);
        TLOAD(inTile[i % 2], src);
        TADD(acc, acc, inTile[i % 2]);
    }
    Gm dst(out);
    TSTORE(dst, acc);
}
