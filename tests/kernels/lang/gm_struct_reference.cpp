// A reference to a struct nested in a tiling record the host lays out in GM, as pto-isa's MoE
// kernels bind `const __gm__ Group &g = tiling->group;` and read its members where they use
// them (scalar-unit reads of GM at the members' offsets).
#include <pto/pto-inst.hpp>

using namespace pto;

struct Group {
    uint32_t rows;
    uint32_t stride;
};

struct Tiling {
    uint32_t version;
    Group group;
};

using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, 64>, Stride<1, 1, 1, 64, 1>>;

extern "C" __global__ AICORE void gm_struct_reference(__gm__ float *out, __gm__ float *in, __gm__ uint8_t *tilingGm)
{
    const __gm__ Tiling *tiling = reinterpret_cast<__gm__ Tiling *>(tilingGm);
    const __gm__ Group &group = tiling->group;
    Row row;
    TASSIGN(row, 0x0);
    for (uint32_t r = 0; r < group.rows; ++r) {
        RowGm src(in + r * group.stride), dst(out + r * group.stride);
        TLOAD(row, src);
        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
        TSTORE(dst, row);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    }
}
