// Two tiles declared before the loop, passed by reference to a helper the loop calls. The helper
// returns at once for the blocks past `count` (known at run time), touching neither; otherwise it
// loads `in` whole, computes `res` from it and stores `res`. No value crosses iterations, so each
// iteration may work in copies of its own: block b + 1 loads while block b computes and stores.
#include "common.hpp"

AICORE inline void HalfExp(BlockT &in, BlockT &res, __gm__ float *out, __gm__ float *x, int b, int count)
{
    if (b >= count)
        return;
    BlockGm src(x + b * BLOCK);
    BlockGm dst(out + b * BLOCK);
    wait_flag(PIPE_V, PIPE_MTE2, (event_t)((b % 2) + 2));  // WAR in: V -> MTE2 (next iteration)
    TLOAD(in, src);
    set_flag(PIPE_MTE2, PIPE_V, (event_t)(b % 2));  // RAW in: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, (event_t)(b % 2));  // RAW in: MTE2 -> V
    wait_flag(PIPE_MTE3, PIPE_V, (event_t)(b % 2));  // WAR res: MTE3 -> V (next iteration)
    TEXP(res, in);
    set_flag(PIPE_V, PIPE_MTE2, (event_t)((b % 2) + 2));  // WAR in: V -> MTE2 (next iteration)
    pipe_barrier(PIPE_V);  // RAW res: TEXP -> TMULS on PIPE_V
    TMULS(res, res, 0.5f);
    set_flag(PIPE_V, PIPE_MTE3, (event_t)(b % 2));  // RAW res: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, (event_t)(b % 2));  // RAW res: V -> MTE3
    TSTORE(dst, res);
    set_flag(PIPE_MTE3, PIPE_V, (event_t)(b % 2));  // WAR res: MTE3 -> V (next iteration)
}

extern "C" __global__ AICORE void guarded_helper(__gm__ float *out, __gm__ float *x, int count)
{
    BlockT in;
    BlockT res;
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: in free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // prime: in free at start (V -> MTE2)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: res free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: res free at start (MTE3 -> V)
    for (int b = 0; b < STEPS; ++b) {
        TASSIGN(in, (b % 2) * 0x4000);  // UB 2 x 16 KiB, one copy per iteration (multi-buffered)
        TASSIGN(res, 0x8000 + (b % 2) * 0x4000);  // UB 2 x 16 KiB, one copy per iteration (multi-buffered)
        HalfExp(in, res, out, x, b, count);
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: in (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // drain: in (V -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: res (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: res (MTE3 -> V)
}
