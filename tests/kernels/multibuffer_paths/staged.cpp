// A loop whose body runs two stages through MultiStaged (each lambda called once, in order). The
// first stage's helper loads `k` (and leaves early past `count`), the second's fills `v` and
// stores it; the tiles are declared before the loop and touched only inside the stages' helpers.
#include "common.hpp"
#include "multiBuffer.hpp"
using namespace pto_auto;

AICORE inline void ExpStage(BlockT &k, BlockT &e, __gm__ float *out, __gm__ float *x, int b, int count)
{
    if (b >= count)
        return;
    BlockGm src(x + b * BLOCK);
    BlockGm dst(out + b * BLOCK);
    TLOAD(k, src);
    TEXP(e, k);
    TMUL(e, e, k);
    TSTORE(dst, e);
}

AICORE inline void FillStage(BlockT &v, __gm__ float *out, int b)
{
    BlockGm dst(out + b * BLOCK);
    TEXPANDS(v, 3.0f);
    TSTORE(dst, v);
}

extern "C" __global__ AICORE void staged(__gm__ float *e_out, __gm__ float *v_out, __gm__ float *x, int count)
{
    BlockT k;
    BlockT e;
    BlockT v;
    MultiStaged<2> stages;
    for (int b = 0; b < STEPS; ++b) {
        stages.run([&]() { ExpStage(k, e, e_out, x, b, count); }, [&]() { FillStage(v, v_out, b); });
    }
}
