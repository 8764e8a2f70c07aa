// helper_prologue_and_steady with a prologue of four steps over its two alternating tiles,
// both loops inside one block: every reverse flag is primed at the block's start and drained at
// its end, so the prologue's per-lane flag and the steady loop's one-id flag, each written in
// both copies, would be live together with ids of their own. The one-id flag stays with the
// steady loop's call; inside the helper both copies take the prologue's per-lane ids.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void scale_block(int step, TileT &t, TileT &o, __gm__ float *src, __gm__ float *dst)
{
    GmT in(src + step * 512);
    GmT out(dst + step * 512);
    TLOAD(t, in);
    TMULS(o, t, 2.0f);
    TSTORE(out, o);
}

extern "C" __global__ AICORE void prologue_then_steady_in_block(__gm__ float *out, __gm__ float *in)
{
    TileT warm[2];
    TileT warm_out[2];
    TileT t;
    TileT o;
    {
        for (int k = 0; k < 4; ++k) {
            scale_block(k, warm[k % 2], warm_out[k % 2], in, out);
        }
        for (int k = 0; k < 6; ++k) {
            scale_block(k + 2, t, o, in, out);
        }
    }
}
