// Tiles whose valid shape is given again at run time (`t = TileT(rows)`, also for the elements
// of a tile array), and a helper template whose defaulted parameter comes before the tile types
// it deduces from its arguments. `check` counts every row of a re-shaped tile (its capacity).
#include <pto/pto-inst.hpp>

using namespace pto;

using T = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, 64>;
using G = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1024, 1024, 1024, 64, 1>>;

template <int Factor = 2, typename TileT, typename GmT>
AICORE inline void ScaleAndStore(GmT &dst, TileT tiles[2], int slot, bool ordered)
{
    TMULS(tiles[slot], tiles[slot], static_cast<float>(Factor));
    if (ordered) {
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    }
    TSTORE(dst, tiles[slot]);
}

__global__ AICORE void tile_reconstruct(__gm__ float *out, __gm__ float *in, int rows, int ordered)
{
    T tiles[2];
    TASSIGN(tiles[0], 0x0);
    TASSIGN(tiles[1], 0x1000);
    for (int i = 0; i < 2; ++i) {
        tiles[i] = T(rows);
    }
    G src(in);
    G dst(out);
    TLOAD(tiles[1], src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    ScaleAndStore(dst, tiles, 1, ordered != 0);

    // Declared with 8 valid rows, then given `rows`: the store below is not ordered after the
    // load, a race on all 16 rows of the tile.
    T single(8);
    TASSIGN(single, 0x2000);
    single = T(rows);
    G src2(in + 1024);
    G dst2(out + 1024);
    TLOAD(single, src2);
    TSTORE(dst2, single);
}
