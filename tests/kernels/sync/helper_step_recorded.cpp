// A helper that records its step through a reference and branches on the same step, called from
// a loop long enough for the planner to leave iterations out: the recorded step does not repeat,
// the step tests keep their breakpoints (step 0 loads the accumulator, the last subtracts).
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void fold_step(int &seen, int step, int steps, TileT &acc, TileT &part, __gm__ float *src)
{
    seen = step;
    GmT in(src + step * 512);
    if (step == 0) {
        TLOAD(acc, in);
    } else {
        TLOAD(part, in);
        if (step < steps - 1) {
            TADD(acc, acc, part);
        } else {
            TSUB(acc, acc, part);
        }
    }
}

extern "C" __global__ AICORE void fold_steps(__gm__ float *out, __gm__ float *in)
{
    constexpr int kSteps = 40;
    int seen = 0;
    TileT acc;
    TileT part;
    for (int k = 0; k < kSteps; ++k) {
        fold_step(seen, k, kSteps, acc, part, in);
    }
    GmT dst(out);
    TSTORE(dst, acc);
}
