// manual2auto input: syncs under switch labels (one before a break goes; one that is the last
// statement of the switch becomes {}, as a label needs a statement), two syncs sharing one line
// (the line goes), a while loop and an if the user wrote empty (both stay).
#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *in, int mode)
{
    using TileT = Tile<TileType::Vec, float, 16, 64>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
    TileT t;
    TASSIGN(t, 0x0);
    Gm src(in), dst(out);
    TLOAD(t, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    switch (mode) {
    case 0:
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        break;
    default:
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    }
    int n = 0;
    while (n < 1)
        ++n;
    if (mode > 3) {
    }
    TADDS(t, t, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0); wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, t);
}
