// Each side of the cluster waits for the other before it signals: the cube core waits for
// "vector ready" before raising "cube ready", and each vector core waits for "cube ready" before
// raising "vector ready". Every wait has its set, yet no core can start (a cycle of waits).
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void crossed(__gm__ float *out, __gm__ float *in)
{
    using RowT = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 8, 64>;
    using GmRow = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
#if defined(__DAV_CUBE__)
    wait_intra_block(PIPE_MTE2, 3);
    wait_intra_block(PIPE_MTE2, 19);
    set_intra_block(PIPE_MTE2, 2);
    set_intra_block(PIPE_MTE2, 18);
#endif
#if defined(__DAV_VEC__)
    RowT x;
    TASSIGN(x, 0x0);
    GmRow src(in + get_subblockid() * 8 * 64);
    GmRow dst(out + get_subblockid() * 8 * 64);
    wait_intra_block(PIPE_MTE2, 2);
    TLOAD(x, src);
    set_intra_block(PIPE_MTE2, 3);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, x);
#endif
}
