// Raw L1 traffic: an L1 block filled with a value and stored to GM, and a GM block copied into L1
// and on into UB. Fills and GM -> L1 run on MTE2, L1 -> GM on MTE3, L1 -> UB on MTE1.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void l1_words(__gm__ int32_t *out, __gm__ int32_t *in)
{
    __cbuf__ int32_t *fill = reinterpret_cast<__cbuf__ int32_t *>(0x0);
    __cbuf__ int32_t *copy = reinterpret_cast<__cbuf__ int32_t *>(0x400);
    __ubuf__ int32_t *staged = reinterpret_cast<__ubuf__ int32_t *>(0x800);
    constexpr int64_t oneBlock = (static_cast<int64_t>(1) << 16) | 1;
    create_cbuf_matrix(fill, oneBlock, static_cast<uint32_t>(7));
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    copy_cbuf_to_gm(static_cast<__gm__ void *>(out), static_cast<__cbuf__ void *>(fill), 0, 1, 1, 0, 0);
    copy_gm_to_cbuf(static_cast<__cbuf__ void *>(copy), static_cast<__gm__ void *>(in), 0, 2, 1, 0, 0, 0);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);
    copy_cbuf_to_ubuf(static_cast<__ubuf__ void *>(staged), static_cast<__cbuf__ void *>(copy), 0, 2, 1, 0, 0);
    set_flag(PIPE_MTE1, PIPE_MTE3, EVENT_ID2);
    wait_flag(PIPE_MTE1, PIPE_MTE3, EVENT_ID2);
    copy_ubuf_to_gm(static_cast<__gm__ void *>(out + 8), static_cast<__ubuf__ void *>(staged), 0, 2, 1, 0, 0);
}
