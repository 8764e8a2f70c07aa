// One a2a3 cluster signalling with ffts flags written directly (mode 2): each vector core stores
// its half of a tile to a GM workspace and raises flag 0; the cube core's wait passes once both
// vector cores raised it, then it loads the whole tile.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void ffts_handoff(__gm__ uint64_t *ffts, __gm__ half *ws, __gm__ half *in)
{
    set_ffts_base_addr((uint64_t)ffts);
#if defined(__DAV_VEC__)
    using HalfT = Tile<TileType::Vec, half, 16, 32, BLayout::RowMajor, 16, 32>;
    using GmHalf = GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    HalfT x;
    TASSIGN(x, 0x0);
    GmHalf gIn(in + get_subblockid() * 16 * 32);
    GmHalf gWs(ws + get_subblockid() * 16 * 32);
    TLOAD(x, gIn);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(gWs, x);
    ffts_cross_core_sync(PIPE_MTE3, getFFTSMsg(0x2, 0));
#endif
#if defined(__DAV_CUBE__)
    using MatT = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using GmAll = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    MatT m;
    TASSIGN(m, 0x0);
    GmAll gWs(ws);
    wait_flag_dev(0);
    TLOAD(m, gWs);
#endif
}
