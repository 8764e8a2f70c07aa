// helper_three_phases with the steady loop in an `if` on a run-time value: the steady copy may
// not run at all, and the epilogue's first waits then take the prologue's last signals. The
// copies still share their per-lane ids inside the helper, primed before the first loop and
// drained after the last.
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

extern "C" __global__ AICORE void helper_three_phases_guarded(__gm__ float *out, __gm__ float *in, int steady)
{
    TileT warm[2];
    TileT warm_out[2];
    TileT t[2];
    TileT o[2];
    TileT cool[2];
    TileT cool_out[2];
    for (int k = 0; k < 4; ++k) {
        scale_block(k, warm[k % 2], warm_out[k % 2], in, out);
    }
    if (steady > 0) {
        for (int k = 4; k < 10; ++k) {
            scale_block(k, t[k % 2], o[k % 2], in, out);
        }
    }
    for (int k = 10; k < 14; ++k) {
        scale_block(k, cool[k % 2], cool_out[k % 2], in, out);
    }
}
