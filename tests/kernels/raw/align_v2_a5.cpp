// a5's byte-counted copies: 3 bursts of 40 bytes, 64 bytes apart in GM and 64 apart in UB, then
// the same bytes back to GM; UB -> L1 on the store engine.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void align_v2_a5(__gm__ uint8_t *out, __gm__ uint8_t *in)
{
    __ubuf__ uint8_t *rows = (__ubuf__ uint8_t *)0x200;
    __cbuf__ uint8_t *keep = (__cbuf__ uint8_t *)0x0;
    copy_gm_to_ubuf_align_v2(rows, in, 0, 3, 40, 0, 0, false, 0, 64, 64);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    copy_ubuf_to_gm_align_v2(out, rows, 0, 3, 40, 0, 64, 64);
    copy_ubuf_to_cbuf(static_cast<__cbuf__ void *>(keep), static_cast<__ubuf__ void *>(rows), 0, 6, 1, 0, 0);
}
