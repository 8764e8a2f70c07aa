// A cube kernel written for a toolchain whose pipe_t has no PIPE_FIX: it defines the name as a
// cast of the hardware number before the PTO headers, and uses it in its flags.
#ifndef PIPE_FIX
#define PIPE_FIX static_cast<pipe_t>(10)
#endif
#include <pto/pto-inst.hpp>

using namespace pto;

using Acc = TileAcc<float, 16, 16>;
using OutGm = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;

extern "C" __global__ AICORE void drain_acc(__gm__ float *out)
{
#if defined(__DAV_C220_CUBE__) || defined(__DAV_C310_CUBE__)
    Acc acc;
    TASSIGN(acc, 0x0);
    OutGm o(out);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(o, acc);
#endif
}
