// A vector kernel that overwrites row 0 of a GM table with fresh values, then copies out the row an
// index in GM names. The index is read by the scalar unit from UB, so the gathered row is known
// only at run time: it may be row 0, which the store just wrote, so the gather load waits for the
// store (MTE3 -> MTE2).
#include <pto/pto-inst.hpp>

using namespace pto;

using Row = Tile<TileType::Vec, float, 1, 64>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;
using Index = Tile<TileType::Vec, int32_t, 1, 8>;
using IndexGm = GlobalTensor<int32_t, Shape<1, 1, 1, 1, 8>, Stride<1, 1, 1, 8, 1>>;

extern "C" __global__ AICORE void update_then_gather(__gm__ float *out, __gm__ float *table, __gm__ float *fresh,
                                                     __gm__ int32_t *indices)
{
    Index idx;
    Row update;
    Row gathered;
    TASSIGN(idx, 0x0);
    TASSIGN(update, 0x100);
    TASSIGN(gathered, 0x200);
    RowGm freshGm(fresh);
    RowGm head(table);
    RowGm outGm(out);
    IndexGm idxGm(indices);
    TLOAD(update, freshGm);
    TLOAD(idx, idxGm);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(head, update);
    set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    __ubuf__ int32_t *picked = (__ubuf__ int32_t *)idx.data();
    int32_t row = picked[0];
    RowGm chosen(table + row * 64);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    TLOAD(gathered, chosen);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID1);
    TSTORE(outGm, gathered);
}
