// An on-chip pointer stepped in a loop: each iteration points `row` at the next of 4 rows of
// 256 bytes in UB and stores that row to GM. The vector fill of `spare` lands just past the last
// row, so it needs no flag against the stores.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void stepped_rows_a5(__gm__ float *out, __gm__ float *in)
{
    using Rows = Tile<TileType::Vec, float, 4, 64, BLayout::RowMajor>;
    using Spare = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor>;
    GlobalTensor<float, Shape<1, 1, 1, 4, 64>, Stride<1, 1, 1, 64, 1>> src(in);
    Rows rows;
    Spare spare;
    TASSIGN(rows, 0x0);
    TASSIGN(spare, 0x400);
    TLOAD(rows, src);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    __ubuf__ float *base = (__ubuf__ float *)0x0;
    __ubuf__ float *row = base;
    for (int k = 0; k < 4; k++) {
        row = base + k * 64;
        copy_ubuf_to_gm_align_v2(out + k * 64, row, 0, 1, 256, 0, 256, 256);
    }
    TEXPANDS(spare, 1.0f);
}
