// a5 register-level vector code outside a `__VEC_SCOPE__` block: a plain block copying a row
// through a vector register. Refused, naming the first register-level construct the kernel runs.
#include <pto/pto-inst.hpp>

using namespace pto;

AICORE inline void CopyRow(__ubuf__ uint8_t *dst, __ubuf__ uint8_t *src, uint32_t n)
{
    RegTensor<uint8_t> reg;
    UnalignReg align;
    MaskReg mask = CreatePredicate<uint8_t>(n);
    vldas(align, src);
    vldus(reg, align, src);
    vsts(reg, dst, 0, NORM_B8, mask);
}

__global__ AICORE void vector_registers(__gm__ uint8_t *out, __gm__ uint8_t *in)
{
    using Row = Tile<TileType::Vec, uint8_t, 1, 256, BLayout::RowMajor>;
    using Gm = GlobalTensor<uint8_t, Shape<1, 1, 1, 1, 256>, Stride<256, 256, 256, 256, 1>>;
    Row a;
    Row b;
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x100);
    Gm src(in);
    Gm dst(out);
    TLOAD(a, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    {
        mem_bar(VST_VLD);
        CopyRow((__ubuf__ uint8_t *)b.data(), (__ubuf__ uint8_t *)a.data(), 256);
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, b);
}
