// Names of the PTO API and of the compiler that pto-isa's single-instruction tests use: the
// TCONCAT implementation entry, pattern gather/scatter along columns, fused vector forms,
// dsb(DSB_ALL), padding an L1 tile, an enumeration as a constexpr type, and types spelled with
// the compiler's predefined type macros; a row view placed from a tile's own address; an index
// sequence written through a scratch tile.
#include <pto/pto-inst.hpp>

using namespace pto;

typedef __SIZE_TYPE__ byte_count_t;
typedef __UINT32_TYPE__ word_t;

extern "C" __global__ AICORE void api_surface(__gm__ float *out, __gm__ float *in)
{
    using Vec = Tile<TileType::Vec, float, 16, 64>;
    using Half = Tile<TileType::Vec, float, 16, 32>;
    using Mat = Tile<TileType::Mat, float, 16, 64, BLayout::RowMajor, 16, 48>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
    constexpr byte_count_t half = sizeof(float) * 16 * 32;
    constexpr word_t whole = 2 * half;
    constexpr CmpMode mode = CmpMode::GT;
    Vec a, b, c;
    Half l, r;
    Mat m;
    TASSIGN(a, 0x0);
    TASSIGN(b, whole);
    TASSIGN(c, 2 * whole);
    TASSIGN(l, 3 * whole);
    TASSIGN(r, 3 * whole + half);
    TASSIGN(m, 0x0);
    Gm src(in), dst(out);
    TLOAD(a, src);
    TLOAD(m, src);
    pipe_barrier(PIPE_MTE2);
    TFILLPAD(m, m);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TGATHER<Half, Vec, MaskPattern::P0101, GatherAxis::GATHER_COL>(l, a);
    TSCATTER<MaskPattern::P1010, ScatterAxis::SCATTER_COL>(r, a);
    pipe_barrier(PIPE_V);
    TCONCAT_IMPL(b, l, r);
    pipe_barrier(PIPE_V);
    TFUSEDMULADD(b, a, a);
    pipe_barrier(PIPE_V);
    TMULADDDST(c, a, b);
    pipe_barrier(PIPE_V);
    TCMPS(c, c, 0.0f, mode);
    using Row = Tile<TileType::Vec, float, 1, 64>;
    Row row;
    TASSIGN(row, (uint64_t)c.data() + 2 * 64 * sizeof(float));
    pipe_barrier(PIPE_V);
    TADDS(row, row, 1.0f);
    using Idx = Tile<TileType::Vec, int32_t, 1, 64>;
    Idx idx, scratch;
    TASSIGN(idx, 4 * whole);
    TASSIGN(scratch, 4 * whole + 256);
    TCI<Idx, Idx, int32_t, 0>(idx, 5, scratch);
    dsb(DSB_ALL);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, c);
}
