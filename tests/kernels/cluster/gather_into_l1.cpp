// One cluster (a5): an MGATHER into an L1 (Mat) tile written where every core runs it, then the
// cube core copies the gathered block into the UB of each vector core (semaphore 0, 16 on the cube
// side: "your copy is in UB") and each vector core stores its copy into its own half of `out`.
//
// L1 is the cube core's: a vector core's part of the gather writes no L1. With the scalar
// executor the cube core does all of it (the staging area is its own); with GatherExec::Simt the
// first vector core fills the staging area and raises cluster semaphore 2, which the cube core
// waits for on MTE2 before it copies the staging area into L1; the second vector core does nothing.
#include <pto/pto-inst.hpp>

using namespace pto;

template <GatherExec Exec>
AICORE inline void gather_then_share(__gm__ float *out, __gm__ float *table, __gm__ int32_t *idx,
                                     __gm__ float *stage)
{
    using TableT = GlobalTensor<float, Shape<1, 1, 1, 1, 512>, Stride<1, 1, 1, 512, 1>>;
    using IdxT = GlobalTensor<int32_t, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
    using StageT = GlobalTensor<float, Shape<1, 1, 1, 1, 256>, Stride<1, 1, 1, 256, 1>>;
    using PickedT = Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512>;
    TableT rows(table);
    IdxT which(idx);
    StageT staging(stage);
    PickedT picked;
    TASSIGN(picked, 0x0);
    MGATHER<Coalesce::Elem, GatherOOB::Clamp, Exec>(picked, rows, which, staging);
#if defined(__DAV_CUBE__)
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    copy_cbuf_to_ubuf((__ubuf__ void *)0x0, (__cbuf__ void *)0x0, 0, 1, 32, 0, 0);
    copy_cbuf_to_ubuf((__ubuf__ void *)0x0, (__cbuf__ void *)0x0, 1, 1, 32, 0, 0);
    set_intra_block(PIPE_MTE1, 0);
    set_intra_block(PIPE_MTE1, 16);
#endif
#if defined(__DAV_VEC__)
    using GotT = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, 16, 16>;
    GotT got;
    TASSIGN(got, 0x0);
    GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>> mine(out + get_subblockid() * 256);
    wait_intra_block(PIPE_MTE3, 0);
    TSTORE(mine, got);
#endif
}

extern "C" __global__ AICORE void gather_scalar(__gm__ float *out, __gm__ float *table, __gm__ int32_t *idx,
                                                __gm__ float *stage)
{
    gather_then_share<GatherExec::Scalar>(out, table, idx, stage);
}

extern "C" __global__ AICORE void gather_simt(__gm__ float *out, __gm__ float *table, __gm__ int32_t *idx,
                                              __gm__ float *stage)
{
    gather_then_share<GatherExec::Simt>(out, table, idx, stage);
}
