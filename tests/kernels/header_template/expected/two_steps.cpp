// Two kernels run two instantiations of one helper template of a header: only the one that
// loads inside the helper waits for its load there, so the header's lines are split on the
// helper's own template parameter with `if constexpr`.
#include <pto/pto-inst.hpp>
#include "scale_step.hpp"
using namespace pto;
using RowsT = Tile<TileType::Vec, float, 8, 64>;
using RowsGm = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

extern "C" __global__ AICORE void fresh_rows(__gm__ float *out, __gm__ float *in)
{
    RowsT t;
    TASSIGN(t, 0x0);  // UB 2 KiB
    RowsT o;
    TASSIGN(o, 0x800);  // UB 2 KiB
    RowsGm src(in);
    RowsGm dst(out);
    scale_step<true>(t, o, src, dst);
}

extern "C" __global__ AICORE void doubled_rows(__gm__ float *out, __gm__ float *in)
{
    RowsT t;
    TASSIGN(t, 0x0);  // UB 2 KiB
    RowsT o;
    TASSIGN(o, 0x800);  // UB 2 KiB
    RowsGm src(in);
    RowsGm dst(out);
    TLOAD(t, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW t: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW t: MTE2 -> V
    TMULS(t, t, 2.0f);
    pipe_barrier(PIPE_V);  // RAW t: TMULS -> TADDS on PIPE_V
    scale_step<false>(t, o, src, dst);
}
