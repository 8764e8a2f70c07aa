// One helper that copies `*count` rows, inlined for two count arguments: its read `*count` is
// spelled the same at both calls but reads another argument at each, so the two are two run-time
// values, given apart (`*count` and `*count#2`). The copy's own read of the same count again
// (`rows` below) is the same bytes and the same value.
#include <pto/pto-inst.hpp>

using namespace pto;

using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void copy_rows(__gm__ float *out, __gm__ float *in, __gm__ int32_t *count, Row &row)
{
    for (int32_t r = 0; r < *count; ++r) {
        RowGm src(in + r * 64);
        RowGm dst(out + r * 64);
        TLOAD(row, src);
        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
        TSTORE(dst, row);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    }
    int32_t rows = *count;
    if (rows > 0) {
        pipe_barrier(PIPE_MTE3);
    }
}

extern "C" __global__ AICORE void gm_reads_alike(__gm__ float *out, __gm__ float *in, __gm__ int32_t *first,
                                                 __gm__ int32_t *second)
{
    Row row;
    TASSIGN(row, 0x0);
    copy_rows(out, in, first, row);
    copy_rows(out + 4096, in + 4096, second, row);
}
