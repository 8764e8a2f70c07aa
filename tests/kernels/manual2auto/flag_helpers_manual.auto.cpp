// A double-buffered manual vector kernel whose flags go through small helpers, in the shape of
// pto-isa's hand-written GEMM: SetFlag/WaitFlag wrappers with the pipes as template arguments,
// prime and drain helpers, a ping-pong slot toggled through a `uint8_t &` parameter, and flag
// calls guarded by `if` (unbraced) on the first and last iterations.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int ROWS = 16;
constexpr int COLS = 64;
constexpr int TILES = 6;

template <typename TileT, typename Gm>
AICORE inline void ScaleTile(TileT *in, TileT &acc, Gm &src, uint8_t &slot, int i)
{
    TLOAD(in[slot], src);
    TADD(acc, acc, in[slot]);
    slot = (slot == 0) ? 1 : 0;
}

extern "C" __global__ AICORE void accumulate(__gm__ float *out, __gm__ float *in)
{
    using TileT = Tile<TileType::Vec, float, ROWS, COLS>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    TileT inTile[2];
    TileT acc;
    uint8_t slot = 0;
    TEXPANDS(acc, 0.0f);
    for (int i = 0; i < TILES; ++i) {
        Gm src(in + i * ROWS * COLS);
        ScaleTile(inTile, acc, src, slot, i);
    }
    Gm dst(out);
    TSTORE(dst, acc);
}
