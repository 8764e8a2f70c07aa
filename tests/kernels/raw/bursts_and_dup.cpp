// Burst geometry and vector fills: a GM -> UB copy of two one-block bursts one block apart leaves
// the block between them alone, so a tile placed there may be written while the copy runs; the
// counter-mode vector_dup fills the first 64 halves, on V.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void bursts_and_dup(__gm__ half *out, __gm__ half *in)
{
    using Block = Tile<TileType::Vec, half, 1, 16, BLayout::RowMajor>;
    using Gm = GlobalTensor<half, Shape<1, 1, 1, 1, 16>, Stride<1, 1, 1, 16, 1>>;
    Block between;
    TASSIGN(between, 0x20);
    Gm dst(out);
    __ubuf__ half *rows = (__ubuf__ half *)(uintptr_t)0x0;
    __ubuf__ half *pad = (__ubuf__ half *)(uintptr_t)0x100;
    copy_gm_to_ubuf(static_cast<__ubuf__ void *>(rows), static_cast<__gm__ void *>(in), 0, 2, 1, 0, 1);
    TEXPANDS(between, (half)1.0);
    set_mask_count();
    set_vector_mask(0, 64);
    vector_dup(pad, (half)0.0, 0, 1, 1, 8, 8);
    set_mask_norm();
    set_vector_mask(-1, -1);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, between);
    copy_ubuf_to_gm(static_cast<__gm__ void *>(out + 16), static_cast<__ubuf__ void *>(pad), 0, 1, 4, 0, 0);
    copy_ubuf_to_gm(static_cast<__gm__ void *>(out + 80), static_cast<__ubuf__ void *>(rows), 0, 2, 1, 1, 0);
}
