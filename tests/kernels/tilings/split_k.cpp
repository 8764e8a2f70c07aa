// Split-K epilogue on the vector core: each output tile is the sum of SPLITS partial tiles. The
// partials stream in double buffered; the last split scales the sum and stores it, under
// `if (s == SPLITS - 1)`, so the epilogue's synchronization belongs inside that guard.
#include <pto/pto-inst.hpp>
using namespace pto;
constexpr int ROWS = 16;
constexpr int COLS = 128;
constexpr int TILES = 4;
constexpr int SPLITS = 4;
using TileT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;

extern "C" __global__ AICORE void split_k(__gm__ float *out, __gm__ float *partials)
{
    TileT part[2];
    TileT sum;
    TileT result;
    for (int t = 0; t < TILES; ++t) {
        for (int s = 0; s < SPLITS; ++s) {
            GmT g(partials + (s * TILES + t) * ROWS * COLS);
            TLOAD(part[s % 2], g);
            if (s == 0) {
                TADDS(sum, part[s % 2], 0.0f);
            } else {
                TADD(sum, sum, part[s % 2]);
            }
            if (s == SPLITS - 1) {
                TMULS(result, sum, 0.25f);
                GmT o(out + t * ROWS * COLS);
                TSTORE(o, result);
            }
        }
    }
}
