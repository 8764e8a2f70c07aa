// Loops that skip and stop: rows whose index is a multiple of `skip` are passed over with
// `continue`, and the copy stops with `break` once `limit` rows are done.
#include <pto/pto-inst.hpp>

using namespace pto;

using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;

__global__ AICORE void copy_some_rows(__gm__ float *out, __gm__ float *in, int32_t skip, int32_t limit)
{
    Row row;
    TASSIGN(row, 0x0);
    int32_t copied = 0;
    for (int32_t r = 0; r < 8; ++r) {
        if (r % skip == 0) {
            continue;
        }
        RowGm src(in + r * 64);
        RowGm dst(out + r * 64);
        TLOAD(row, src);
        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
        TSTORE(dst, row);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        copied = copied + 1;
        if (copied >= limit) {
            break;
        }
    }
}
