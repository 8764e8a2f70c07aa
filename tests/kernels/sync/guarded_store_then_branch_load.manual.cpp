// Every other step publishes a block to `shared` (a store under `if`, inside a loop of one
// lane) before a long store of its own; the next helper reads `shared` back in both branches of
// `if (t == 0)`. The read waits only for the publishing store: the flag is set right after that
// store, inside its branch, and waited before the reader's `if` under the same condition read
// with the lane loop's one value (`(t % 2) == 0`), not after the long store.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void publish(int t, int lane, TileT &x, TileT &big, __gm__ float *shared, __gm__ float *log)
{
    if (lane == 0 && t % 2 == 0) {
        GmT s(shared);
        TSTORE(s, x);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // RAW s: MTE3 -> MTE2
    }
    GmT l(log + t * 512);
    wait_flag(PIPE_V, PIPE_MTE3, (event_t)((t % 2) + 2));  // RAW big: V -> MTE3
    TSTORE(l, big);
}

AICORE inline void take(int t, TileT &acc, TileT &in, __gm__ float *shared)
{
    GmT s(shared);
    if ((t % 2) == 0) wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // RAW s: MTE3 -> MTE2
    if (t == 0) {
        TLOAD(acc, s);
    } else {
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)(t % 2));  // WAR in: V -> MTE2 (next iteration)
        TLOAD(in, s);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)(t % 2));  // RAW in: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(t % 2));  // RAW in: MTE2 -> V
        TADD(acc, acc, in);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)(t % 2));  // WAR in: V -> MTE2 (next iteration)
    }
}

extern "C" __global__ AICORE void publish_take(__gm__ float *out, __gm__ float *shared, __gm__ float *log,
                                               __gm__ float *src)
{
    TileT x;
    TileT big;
    TileT acc;
    TASSIGN(acc, 0x2000);  // UB 2 KiB
    TileT in;
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // prime: x free at start (MTE3 -> MTE2)
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // prime: x free at start (MTE3 -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: in free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: in free at start (V -> MTE2)
    for (int t = 0; t < 6; ++t) {
        GmT g(src + t * 512);
        TASSIGN(x, (t % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        TASSIGN(big, 0x1000 + (t % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        TASSIGN(in, 0x2800 + (t % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
        wait_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(t % 2));  // WAR x: MTE3 -> MTE2 (next iteration)
        TLOAD(x, g);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)((t % 2) + 2));  // RAW x: MTE2 -> V
        set_flag(PIPE_MTE2, PIPE_MTE3, (event_t)((t % 2) + 4));  // RAW/WAR x, s: MTE2 -> MTE3
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)((t % 2) + 2));  // RAW x: MTE2 -> V
        TADDS(big, x, 1.0f);
        set_flag(PIPE_V, PIPE_MTE3, (event_t)((t % 2) + 2));  // RAW big: V -> MTE3
        wait_flag(PIPE_MTE2, PIPE_MTE3, (event_t)((t % 2) + 4));  // RAW/WAR x, s: MTE2 -> MTE3
        for (int lane = 0; lane < 1; ++lane) {
            publish(t, lane, x, big, shared, log);
        }
        set_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(t % 2));  // WAR x: MTE3 -> MTE2 (next iteration)
        pipe_barrier(PIPE_V);  // RAW acc: TADD -> TADD on PIPE_V
        take(t, acc, in, shared);
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID4);  // RAW acc: V -> MTE3
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // drain: x (MTE3 -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // drain: x (MTE3 -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: in (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: in (V -> MTE2)
    GmT o(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID4);  // RAW acc: V -> MTE3
    TSTORE(o, acc);
}
