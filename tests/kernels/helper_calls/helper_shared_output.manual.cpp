// A helper called twice writing the same output tile: the second call overwrites it only after
// the first call's store has read it, ordered at the callers (the helper's lines stay one text).
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
AICORE inline void stage(TileT &t, TileT &o, GmT &src, GmT &dst)
{
    TLOAD(t, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t: MTE2 -> V
    TADDS(o, t, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    TSTORE(dst, o);
}
extern "C" __global__ AICORE void twice(__gm__ float *out, __gm__ float *in)
{
    TileT a;
    TASSIGN(a, 0x0);  // UB 2 KiB
    TileT b;
    TASSIGN(b, 0x800);  // UB 2 KiB
    TileT c;
    TASSIGN(c, 0x1000);  // UB 2 KiB
    GmT g0(in);
    GmT g1(in + 512);
    GmT o0(out);
    GmT o1(out + 512);
    stage(a, b, g0, o0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR o: MTE3 -> V
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // t consumed: V -> MTE2 (flag reuse)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR o: MTE3 -> V
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // t consumed: V -> MTE2 (flag reuse)
    stage(c, b, g1, o1);
}
