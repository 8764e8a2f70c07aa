// Template arguments that compare and choose: `A<B ? x : y>` and a `<` after a name that is no
// template, as in `Shape<1, 1, 1, rows, cols<cap ? cols : cap>`. The row is 48 wide (the
// smaller of 48 and 64), so the store's GM view spans 48 elements of the 64-wide tile.
#include <pto/pto-inst.hpp>
using namespace pto;

template <int cols, int cap>
AICORE inline void StoreNarrowest(__gm__ float *out, __gm__ float *in)
{
    using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor, 1, (cols < cap ? cols : cap)>;
    using View = GlobalTensor<float, Shape<1, 1, 1, 1, cols<cap ? cols : cap>, Stride<1, 1, 1, 64, 1>>;
    View src(in);
    View dst(out);
    Row row;
    TASSIGN(row, 0x0);
    TLOAD(row, src);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, row);
}

extern "C" __global__ AICORE void compare_in_template_args(__gm__ float *out, __gm__ float *in)
{
    StoreNarrowest<48, 64>(out, in);
}
