// Indexed GM access: a row gather into a UB tile through an index tile, a scatter of those rows
// into a second table with an atomic and an out-of-range policy, a data-cache flush, and a reload
// from that table.
#include <pto/pto-inst.hpp>

using namespace pto;

// The out-of-range policy reaches the instruction as a template parameter.
template <GatherOOB Oob, typename Dst, typename Table, typename Index>
AICORE inline void GatherRows(Dst &dst, Table &table, Index &idx)
{
    MGATHER<Coalesce::Row, Oob>(dst, table, idx);
}

extern "C" __global__ AICORE void gather_scatter(__gm__ float *table, __gm__ int32_t *index, __gm__ float *out)
{
    using Rows = Tile<TileType::Vec, float, 8, 64>;
    using Index = Tile<TileType::Vec, int32_t, 1, 8>;
    using Table = GlobalTensor<float, Shape<1, 1, 1, 32, 64>, Stride<1, 1, 1, 64, 1>>;
    using IndexGm = GlobalTensor<int32_t, Shape<1, 1, 1, 1, 8>, Stride<1, 1, 1, 8, 1>>;
    Rows rows;
    Index idx;
    TASSIGN(idx, 0x0);
    TASSIGN(rows, 0x100);
    Table src(table), dst(out);
    IndexGm ids(index);
    TLOAD(idx, ids);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    GatherRows<GatherOOB::Clamp>(rows, src, idx);
    pipe_barrier(PIPE_V);
    MSCATTER<Coalesce::Row, ScatterAtomicOp::Add, ScatterOOB::Skip>(dst, rows, idx);
    dcci(static_cast<__gm__ void *>(0), cache_line_t::ENTIRE_DATA_CACHE);  // no pipe ordering
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    TLOAD(rows, dst);
}
