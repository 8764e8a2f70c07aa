// Several variables per declaration, a ping-pong slot toggled through a `uint8_t &` parameter of a
// helper, a GM pointer parameter that a helper advances in its loop, and a pointer reassigned
// from a view after the loop (pto-isa's `out = dstGlobal.data();`).
#include <pto/pto-inst.hpp>

using namespace pto;

using TileT = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1>;
using Gm = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void Toggle(uint8_t &slot)
{
    slot = 1 - slot;
}

template <typename T>
AICORE inline void AddRows(T *buf, TileT &acc, __gm__ float *src, int tiles)
{
    uint8_t slot = 0, unused = 0;
    for (int i = 0; i < tiles; ++i) {
        Gm g(src);
        TLOAD(buf[slot], g);
        TADD(acc, acc, buf[slot]);
        src = src + 16 * 64;
        Toggle(slot);
    }
}

extern "C" __global__ AICORE void declarations(__gm__ float *out, __gm__ float *in)
{
    TileT buf[2];
    TileT acc(16, 64), scaled(16, 64), shifted(16, 48);
    Tile<TileType::Vec, float, 16, 64> a, b;
    TEXPANDS(acc, 0.0f);
    AddRows(buf, acc, in, 4);
    TMULS(scaled, acc, 0.25f);
    TEXPANDS(shifted, 1.0f);  // its own valid shape: 16 x 48
    TMOV(a, scaled);
    TADD(b, a, a);
    Gm g1(out), g2(out + 16 * 64), g3(out + 2 * 16 * 64);
    TSTORE(g1, scaled);
    TSTORE(g2, shifted);
    TSTORE(g3, b);
    out = g3.data();
}
