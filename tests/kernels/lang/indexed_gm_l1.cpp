// An element gather into an L1 tile with the indices and a staging area in GM (the cube core's
// form of MGATHER), then a reload of the tile that must wait for it.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void gather_to_l1(__gm__ half *table, __gm__ int32_t *index, __gm__ half *scratch)
{
#if defined(__DAV_CUBE__)
    using Nz = Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512>;
    using Flat = GlobalTensor<half, Shape<1, 1, 1, 1, 1024>, Stride<1, 1, 1, 1024, 1>>;
    using Ids = GlobalTensor<int32_t, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
    using Stage = GlobalTensor<half, Shape<1, 1, 1, 1, 256>, Stride<1, 1, 1, 256, 1>>;
    Nz dst;
    TASSIGN(dst, 0x0);
    Flat src(table);
    Ids ids(index);
    Stage stage(scratch);
    MGATHER<Coalesce::Elem, GatherOOB::Zero>(dst, src, ids, stage);
    pipe_barrier(PIPE_MTE2);
    TLOAD(dst, src);
#endif
}
