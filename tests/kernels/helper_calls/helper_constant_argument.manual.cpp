// A helper whose load is guarded by its parameter (`if (part == 0)`), called once before a loop
// with the constant 0 and once per inner step with the step's variable. The first call's `if`
// is decided at compile time, the second's is not: the first copy keeps the `if` (a branch
// that always runs) so both copies have one statement at each place, and the flag that orders
// the load before the scaling is written once, after the `if`, for both.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void double_part(TileT &src, TileT &dst, int part, __gm__ float *in, __gm__ float *out)
{
    if (part == 0) {
        GmT from(in);
        TLOAD(src, from);
    }
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW src: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW src: MTE2 -> V
    TMULS(dst, src, 2.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW dst: V -> MTE3
    GmT to(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW dst: V -> MTE3
    TSTORE(to, dst);
}

extern "C" __global__ AICORE void constant_argument_copy(__gm__ float *out, __gm__ float *in)
{
    TileT src;
    TASSIGN(src, 0x0);  // UB 2 KiB
    TileT dst;
    TASSIGN(dst, 0x800);  // UB 2 KiB
    double_part(src, dst, 0, in, out);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: dst free at start (MTE3 -> V)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: src free at start (V -> MTE2)
    for (int blk = 0; blk < 3; ++blk) {
        for (int part = 0; part < 2; ++part) {
            wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR dst: MTE3 -> V (next iteration)
            wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // WAR src: V -> MTE2 (next iteration)
            double_part(src, dst, part, in + (blk + 1) * 512, out + (blk * 2 + part + 1) * 512);
            set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR dst: MTE3 -> V (next iteration)
            set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // WAR src: V -> MTE2 (next iteration)
        }
    }
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: dst (MTE3 -> V)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: src (V -> MTE2)
}
