// An a5 vector kernel with a block of register-level vector code: it loads a row into UB, copies
// the row's bytes into a second tile with vector-register loads and stores of its own, and stores
// that tile. The block runs on the vector pipe, so the load hands over to it with an MTE2 -> V
// flag and the store waits for it with a V -> MTE3 flag.
#include <pto/pto-inst.hpp>

using namespace pto;

using Row = Tile<TileType::Vec, uint8_t, 1, 256>;
using RowGm = GlobalTensor<uint8_t, Shape<1, 1, 1, 1, 256>, Stride<1, 1, 1, 256, 1>>;

AICORE inline void CopyBytes(__ubuf__ uint8_t *dst, __ubuf__ uint8_t *src, uint32_t count)
{
    RegTensor<uint8_t> bytes;
    MaskReg all = CreatePredicate<uint8_t>(count);
    vlds(bytes, src, 0, NORM);
    vsts(bytes, dst, 0, NORM_B8, all);
}

extern "C" __global__ AICORE void copy_row(__gm__ uint8_t *out, __gm__ uint8_t *in)
{
    Row src;
    Row dst;
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x100);
    RowGm inGm(in);
    RowGm outGm(out);
    TLOAD(src, inGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    __VEC_SCOPE__
    {
        mem_bar(VST_VLD);
        CopyBytes((__ubuf__ uint8_t *)dst.data(), (__ubuf__ uint8_t *)src.data(), 256);
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(outGm, dst);
}
