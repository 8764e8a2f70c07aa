// A helper with an early return (compiled out in this instantiation: its `returned` flag is set
// to 0 at every call before it is read) that records its step, called from a loop long enough
// for the planner to leave iterations out. The flag keeps its value: no path skips the body.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

template <bool SKIP_TAIL>
AICORE inline void fold_step(int &seen, int step, int steps, TileT &acc, TileT &part, __gm__ float *src)
{
    seen = step;
    if constexpr (SKIP_TAIL) {
        if (step > steps / 2) {
            return;
        }
    }
    GmT in(src + step * 512);
    if (step == 0) {
        TLOAD(acc, in);
    } else {
        TLOAD(part, in);
        TADD(acc, acc, part);
    }
}

extern "C" __global__ AICORE void fold_steps(__gm__ float *out, __gm__ float *in)
{
    constexpr int kSteps = 40;
    int seen = 0;
    TileT acc;
    TileT part;
    for (int k = 0; k < kSteps; ++k) {
        fold_step<false>(seen, k, kSteps, acc, part, in);
    }
    GmT dst(out);
    TSTORE(dst, acc);
}
