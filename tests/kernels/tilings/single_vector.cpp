// A vector pipeline written single buffered: every step loads a tile, computes
// (exp(x) * x + 1) / 2 and stores the result, always through the same two tiles. ptorewrite gives each step its own
// copies, so step i + 1 loads while step i computes and stores.
#include <pto/pto-inst.hpp>
using namespace pto;
constexpr int ROWS = 32;
constexpr int COLS = 128;
constexpr int STEPS = 16;
using TileT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;

extern "C" __global__ AICORE void single_vector(__gm__ float *out, __gm__ float *x)
{
    TileT a;
    TileT r;
    for (int i = 0; i < STEPS; ++i) {
        GmT gx(x + i * ROWS * COLS);
        GmT go(out + i * ROWS * COLS);
        TLOAD(a, gx);
        TEXP(r, a);
        TMUL(r, r, a);
        TADDS(r, r, 1.0f);
        TMULS(r, r, 0.5f);
        TSTORE(go, r);
    }
}
