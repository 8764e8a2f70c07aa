// Helpers that issue work and return a value, called inside expressions: a bounds check that
// drains the pipes before it reports failure, and a load that returns how many rows it brought in.
#include <pto/pto-inst.hpp>

using namespace pto;

using Rows = Tile<TileType::Vec, float, 16, 64>;
using RowsGm = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline bool RowsFit(int rows)
{
    if (rows <= 0 || rows > 16) {
        pipe_barrier(PIPE_ALL);
        return false;
    }
    return true;
}

AICORE inline int LoadRows(Rows &t, RowsGm &g)
{
    TLOAD(t, g);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    return 16;
}

extern "C" __global__ AICORE void scale_rows(__gm__ float *out, __gm__ float *in, int rows)
{
    if (!RowsFit(rows)) {
        return;
    }
    Rows x;
    TASSIGN(x, 0x0);
    RowsGm src(in);
    RowsGm dst(out);
    int loaded = LoadRows(x, src);
    if (loaded == 16) {
        TMULS(x, x, 2.0f);
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
}
