// A helper called twice; a tile loaded between the calls is used after the second one, so its
// flag is live across that call only. The helper's flags keep one event id at both calls.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void shift_rows(TileT &t, TileT &o, __gm__ float *src, __gm__ float *dst)
{
    GmT in(src);
    GmT out(dst);
    TLOAD(t, in);
    pipe_barrier(PIPE_ALL);  // RAW t: out of event ids (cannot be ordered with flags)
    TADDS(o, t, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    pipe_barrier(PIPE_ALL);  // RAW o: out of event ids (cannot be ordered with flags)
    TSTORE(out, o);
}

extern "C" __global__ AICORE void shift_twice(__gm__ float *out, __gm__ float *in, __gm__ float *bias)
{
    TileT a;
    TASSIGN(a, 0x0);  // UB 2 KiB
    TileT b;
    TASSIGN(b, 0x800);  // UB 2 KiB
    TileT c;
    TASSIGN(c, 0x1000);  // UB 2 KiB
    TileT d;
    TASSIGN(d, 0x1800);  // UB 2 KiB
    TileT x;
    TASSIGN(x, 0x2000);  // UB 2 KiB
    TileT y;
    TASSIGN(y, 0x2800);  // UB 2 KiB
    shift_rows(a, b, in, out);
    GmT g(bias);
    TLOAD(x, g);
    shift_rows(c, d, in + 512, out + 512);
    TADD(y, x, x);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW y: V -> MTE3
    GmT r(out + 1024);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW y: V -> MTE3
    TSTORE(r, y);
}
