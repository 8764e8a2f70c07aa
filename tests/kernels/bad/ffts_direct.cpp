// Bad input: an ffts flag written directly in mode 0 (a barrier across all the vector cores), which
// is not modelled: stopped at the call with a located error.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void ffts_direct(__gm__ uint64_t *ffts, __gm__ float *out)
{
    using TileT = Tile<TileType::Vec, float, 16, 64>;
    using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
    TileT x;
    GmT g(out);
    set_ffts_base_addr((uint64_t)ffts);
    TEXPANDS(x, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(g, x);
    ffts_cross_core_sync(PIPE_MTE3, getFFTSMsg(0x0, 1));
}
