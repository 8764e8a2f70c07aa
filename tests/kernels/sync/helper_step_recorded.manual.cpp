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
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)(step % 2));  // WAR part: V -> MTE2 (next iteration)
        TLOAD(part, in);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)(step % 2));  // RAW/WAW acc, part: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(step % 2));  // RAW/WAW acc, part: MTE2 -> V
        if (step < steps - 1) {
            TADD(acc, acc, part);
        } else {
            TSUB(acc, acc, part);
        }
        set_flag(PIPE_V, PIPE_MTE2, (event_t)(step % 2));  // WAR part: V -> MTE2 (next iteration)
    }
}

extern "C" __global__ AICORE void fold_steps(__gm__ float *out, __gm__ float *in)
{
    constexpr int kSteps = 40;
    int seen = 0;
    TileT acc;
    TASSIGN(acc, 0x0);  // UB 2 KiB
    TileT part;
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: part free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: part free at start (V -> MTE2)
    for (int k = 0; k < kSteps; ++k) {
        TASSIGN(part, 0x800 + (k % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        pipe_barrier(PIPE_V);  // RAW acc: TADD -> TADD on PIPE_V
        fold_step(seen, k, kSteps, acc, part, in);
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // RAW acc: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: part (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: part (V -> MTE2)
    GmT dst(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // RAW acc: V -> MTE3
    TSTORE(dst, acc);
}
