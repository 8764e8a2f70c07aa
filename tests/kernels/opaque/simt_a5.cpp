// An a5 vector kernel that launches a SIMT function: its lanes read a GM table and write a GM
// output row, with a UB word per warp as scratch. A vector add on UB tiles runs before it; the
// launch runs on the vector pipe, and the scalar unit waits for it with a V -> S flag before the
// tiles' result is stored.
#include <pto/pto-inst.hpp>

using namespace pto;

using Row = Tile<TileType::Vec, float, 1, 64>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;

template <uint32_t kCols>
__simt_vf__ AICORE LAUNCH_BOUND(64) inline void GatherRow(__gm__ float *dst, __gm__ const float *table, uint32_t row)
{
    const uint32_t lane = __cce_simt_get_TID_X();
    __ubuf__ float *scratch = (__ubuf__ float *)((__ubuf__ uint8_t *)0);
    scratch[lane] = table[row * kCols + lane];
    __sync_workitems();
    dst[lane] = scratch[lane];
}

extern "C" __global__ AICORE void gather_and_add(__gm__ float *sum, __gm__ float *gathered, __gm__ float *table,
                                                 __gm__ float *a, __gm__ float *b)
{
    Row x;
    Row y;
    TASSIGN(x, 0x400);
    TASSIGN(y, 0x800);
    RowGm aGm(a);
    RowGm bGm(b);
    RowGm sumGm(sum);
    TLOAD(x, aGm);
    TLOAD(y, bGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(x, x, y);
    cce::async_invoke<GatherRow<64>>(cce::dim3{64, 1}, gathered, table, 3);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(sumGm, x);
    set_flag(PIPE_V, PIPE_S, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_S, EVENT_ID1);
}
