// A vector kernel that doubles two rows, warming the L2 cache for the second with the SDMA engine
// once the first is done. The prefetch changes no data; the engine is driven through the
// context's UB scratch block at 0x0, which the first row's tile shares, and the GM workspace. So
// the scalar unit waits for the first row's store (MTE3 -> S) before it starts the prefetch, and
// the second row is loaded once the prefetch's event has been waited on.
#include <pto/pto-inst.hpp>

using namespace pto;

using Row = Tile<TileType::Vec, float, 1, 64>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void DoubleRow(Row &row, RowGm &src, RowGm &dst)
{
    TLOAD(row, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(row, row, row);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, row);
}

extern "C" __global__ AICORE void warm_then_double(__gm__ float *out, __gm__ float *in, __gm__ uint8_t *workspace)
{
    Row first;
    Row second;
    TASSIGN(first, 0x0);
    TASSIGN(second, 0x100);
    RowGm firstIn(in);
    RowGm secondIn(in + 64);
    RowGm firstOut(out);
    RowGm secondOut(out + 64);
    PrefetchAsyncContext ctx(workspace);
    DoubleRow(first, firstIn, firstOut);
    set_flag(PIPE_MTE3, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_S, EVENT_ID0);
    comm::AsyncEvent warmed = TPREFETCH_ASYNC(secondIn, ctx);
    if (warmed.valid()) {
        warmed.Wait(ctx.GetSession());
    }
    DoubleRow(second, secondIn, secondOut);
}
