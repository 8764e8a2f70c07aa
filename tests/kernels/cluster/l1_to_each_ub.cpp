// One cluster (a5): the cube core loads a 16x64 float block into L1 and copies it into the UB of
// each vector core with `copy_cbuf_to_ubuf`, whose third argument names the core (0, then 1), at
// the same UB address; each vector core stores what it got. The two copies write different UBs,
// so they are no WAW on one buffer; semaphore 0 (16 for the second core on the cube side) says
// "your copy is in UB".
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void l1_to_each_ub(__gm__ float *out, __gm__ float *in)
{
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
#if defined(__DAV_CUBE__)
    using MatT = Tile<TileType::Mat, float, 16, 64, BLayout::RowMajor, 16, 64, SLayout::NoneBox>;
    MatT block;
    TASSIGN(block, 0x0);
    Gm src(in);
    TLOAD(block, src);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    __cbuf__ float *from = (__cbuf__ float *)0x0;
    __ubuf__ float *to = (__ubuf__ float *)0x0;
    copy_cbuf_to_ubuf((__ubuf__ void *)to, (__cbuf__ void *)from, 0, 1, 128, 0, 0);
    copy_cbuf_to_ubuf((__ubuf__ void *)to, (__cbuf__ void *)from, 1, 1, 128, 0, 0);
    set_intra_block(PIPE_MTE1, 0);
    set_intra_block(PIPE_MTE1, 16);
#endif
#if defined(__DAV_VEC__)
    using RowsT = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
    RowsT got;
    TASSIGN(got, 0x0);
    Gm dst(out + get_subblockid() * 16 * 64);
    wait_intra_block(PIPE_MTE3, 0);
    TSTORE(dst, got);
#endif
}
