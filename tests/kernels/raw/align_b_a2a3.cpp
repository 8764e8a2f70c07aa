// a2a3's byte-counted copies: 2 bursts of 40 bytes, 24 bytes apart in GM; in UB each burst takes
// whole 32-byte blocks (64 bytes) with one block between bursts. The rows copied back out skip
// that gap block, which a counter-mode vector fill of 8 floats writes meanwhile.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void align_b_a2a3(__gm__ float *out, __gm__ float *in)
{
    __ubuf__ float *rows = (__ubuf__ float *)0x0;
    __ubuf__ float *gap = (__ubuf__ float *)0x40;
    copy_gm_to_ubuf_align_b32(rows, in, 0, 2, 40, 0, 0, 24, 1);
    set_mask_count();
    set_vector_mask(0, 8);
    vector_dup(gap, 0.0f, 0, 1, 1, 8, 8);
    set_mask_norm();
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    copy_ubuf_to_gm_align_b32(out, rows, 0, 2, 40, 0, 0, 1, 0);
}
