// Manual kernel: one MTE3 -> MTE2 flag, set once per iteration by PIPE_MTE3 (idle) and waited
// once per iteration by PIPE_MTE2 (busy with a load). Every set is issued after the previous
// wait, but nothing orders PIPE_MTE3 after PIPE_MTE2, so MTE3 can run two sets ahead while the
// flag still holds the first: a lost signal, and the final wait hangs. `check` reports it.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void reuse_unordered(__gm__ float *out, __gm__ float *in)
{
    TileT x[4];
    TASSIGN(x[0], 0x0);
    TASSIGN(x[1], 0x800);
    TASSIGN(x[2], 0x1000);
    TASSIGN(x[3], 0x1800);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    for (int i = 0; i < 4; ++i) {
        GmT g(in + i * 512);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        TLOAD(x[i], g);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
}
