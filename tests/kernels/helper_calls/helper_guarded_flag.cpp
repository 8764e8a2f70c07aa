// A helper whose load runs every other step (`if (step % 2 == 0) TLOAD(panel, ...)`), called in
// two loops of one loop over heads. The second call reuses its panel across steps, so its copy
// needs the V -> MTE2 flag back to the next load, set only when the next step loads (a guarded
// set, `if (((step + 1) % 2) == 0) set_flag(...)`); the first call's tile is loaded once per
// pass and needs none. The helper has one text: the guarded flag is written in both copies,
// its guard read through each call's own step.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void add_panel(TileT &acc, TileT &panel, int step, __gm__ float *src)
{
    if (step % 2 == 0) {
        GmT in(src);
        TLOAD(panel, in);
    }
    TADD(acc, acc, panel);
}

extern "C" __global__ AICORE void guarded_flag_in_one_copy(__gm__ float *out, __gm__ float *in)
{
    TileT acc;
    TileT panel;
    TileT once;
    TEXPANDS(acc, 0.0f);
    for (int h = 0; h < 2; ++h) {
        for (int j = 0; j < 2; ++j) {
            add_panel(acc, once, j, in + h * 4096);
        }
        for (int k = 0; k < 6; ++k) {
            add_panel(acc, panel, k, in + h * 4096 + (k / 2 + 1) * 512);
        }
    }
    GmT dst(out);
    TSTORE(dst, acc);
}
