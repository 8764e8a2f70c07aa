// AUTO twin of indexed_gm.cpp (plus a store of the reloaded rows): auto2manual places the tiles and
// orders the scatter before the reload of its table; verify runs both on random tables and indices.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void gather_scatter(__gm__ float *table, __gm__ int32_t *index, __gm__ float *out)
{
    using Rows = Tile<TileType::Vec, float, 8, 64>;
    using Index = Tile<TileType::Vec, int32_t, 1, 8>;
    using Table = GlobalTensor<float, Shape<1, 1, 1, 32, 64>, Stride<1, 1, 1, 64, 1>>;
    using IndexGm = GlobalTensor<int32_t, Shape<1, 1, 1, 1, 8>, Stride<1, 1, 1, 8, 1>>;
    Rows rows;
    Index idx;
    Table src(table), dst(out);
    IndexGm ids(index);
    TLOAD(idx, ids);
    MGATHER<Coalesce::Row, GatherOOB::Clamp>(rows, src, idx);
    MSCATTER<Coalesce::Row, ScatterAtomicOp::Add, ScatterOOB::Skip>(dst, rows, idx);
    TLOAD(rows, dst);
    TSTORE(dst, rows);
}
