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
    wait_flag(PIPE_V, PIPE_MTE2, (event_t)((b % 2) + 4));  // WAR k: V -> MTE2 (next iteration)
    TLOAD(k, src);
    set_flag(PIPE_MTE2, PIPE_V, (event_t)(b % 2));  // RAW k: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, (event_t)(b % 2));  // RAW k: MTE2 -> V
    wait_flag(PIPE_MTE3, PIPE_V, (event_t)(b % 2));  // WAR e: MTE3 -> V (next iteration)
    TEXP(e, k);
    pipe_barrier(PIPE_V);  // RAW e: TEXP -> TMUL on PIPE_V
    TMUL(e, e, k);
    set_flag(PIPE_V, PIPE_MTE3, (event_t)(b % 2));  // RAW e: V -> MTE3
    set_flag(PIPE_V, PIPE_MTE2, (event_t)((b % 2) + 4));  // WAR k: V -> MTE2 (next iteration)
    wait_flag(PIPE_V, PIPE_MTE3, (event_t)(b % 2));  // RAW e: V -> MTE3
    TSTORE(dst, e);
    set_flag(PIPE_MTE3, PIPE_V, (event_t)(b % 2));  // WAR e: MTE3 -> V (next iteration)
}

AICORE inline void FillStage(BlockT &v, __gm__ float *out, int b)
{
    BlockGm dst(out + b * BLOCK);
    wait_flag(PIPE_MTE3, PIPE_V, (event_t)((b % 2) + 2));  // WAR v: MTE3 -> V (next iteration)
    TEXPANDS(v, 3.0f);
    set_flag(PIPE_V, PIPE_MTE3, (event_t)((b % 2) + 2));  // RAW v: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, (event_t)((b % 2) + 2));  // RAW v: V -> MTE3
    TSTORE(dst, v);
    set_flag(PIPE_MTE3, PIPE_V, (event_t)((b % 2) + 2));  // WAR v: MTE3 -> V (next iteration)
}

extern "C" __global__ AICORE void staged(__gm__ float *e_out, __gm__ float *v_out, __gm__ float *x, int count)
{
    BlockT k;
    BlockT e;
    BlockT v;
    MultiStaged<2> stages;
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID4);  // prime: k free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID5);  // prime: k free at start (V -> MTE2)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: e free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: e free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);  // prime: v free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID3);  // prime: v free at start (MTE3 -> V)
    for (int b = 0; b < STEPS; ++b) {
        stages.run([&]() {
            TASSIGN(k, (b % 2) * 0x4000);  // UB 2 x 16 KiB, one copy per iteration (multi-buffered)
            TASSIGN(e, 0x8000 + (b % 2) * 0x4000);  // UB 2 x 16 KiB, one copy per iteration (multi-buffered)
            TASSIGN(v, 0x10000 + (b % 2) * 0x4000);  // UB 2 x 16 KiB, one copy per iteration (multi-buffered)
            ExpStage(k, e, e_out, x, b, count); }, [&]() { FillStage(v, v_out, b); });
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID4);  // drain: k (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID5);  // drain: k (V -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: e (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: e (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);  // drain: v (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID3);  // drain: v (MTE3 -> V)
}
