// A kernel whose header marks its device functions with `[aicore]` (bisheng's spelling of
// __aicore__), as some hand-written kernels do; the kernel file itself uses it too.
#include <pto/pto-inst.hpp>
#include "bracket_qualifier.hpp"

using namespace pto;

using RowsT = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
using MeanT = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, 16, 1>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
using GmMeanT = GlobalTensor<float, Shape<1, 1, 1, 16, 1>, Stride<1, 1, 1, 1, 1>>;

extern "C" __global__ [aicore] void bracket_qualifier(__gm__ float *out, __gm__ float *in, __gm__ float *mean)
{
    RowsT x;
    RowsT y;
    MeanT m;
    GmT src(in + twice(0) + signalWord(0) * 0);
    GmMeanT srcMean(mean);
    GmT dst(out);
    TASSIGN(x, 0x0);
    TASSIGN(y, 0x1000);
    TASSIGN(m, 0x2000);
    TLOAD(x, src);
    TLOAD(m, srcMean);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    centreRows(y, x, m);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, y);
}
