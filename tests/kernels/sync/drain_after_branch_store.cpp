// A loop to n whose iterations update a tile and, when mode is 0, store it; every iteration then
// stores a row from another tile. After the loop the tile is written again. The loop's own
// "tile free" flag (set after the branch, drained after the loop) already orders the last
// store of the tile before that write, on every exit of the loop: no flag of its own.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using RowT = Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor, 8, 1>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
using GmRow = GlobalTensor<float, Shape<1, 1, 1, 8, 1>, Stride<1, 1, 1, 1, 1>>;
constexpr int E = 512;
extern "C" __global__ AICORE void drain_after_branch_store(__gm__ float *out, __gm__ float *side, __gm__ float *res, int n,
                                         int mode)
{
    TileT t;
    RowT rw;
    TEXPANDS(t, 1.0f);
    TEXPANDS(rw, 2.0f);
    for (int i = 0; i < n; ++i) {
        TADDS(t, t, 1.0f);
        if (mode == 0) {
            GmT g(out + i * E);
            TSTORE(g, t);
        }
        GmRow r(side + i * E + 8);
        TSTORE(r, rw);
    }
    TMULS(t, t, 2.0f);
    GmT last(res);
    TSTORE(last, t);
}
