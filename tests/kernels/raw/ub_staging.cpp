// A vector kernel that moves words through UB at addresses it picks itself, below the PTO
// instructions: a GM -> UB copy read back by the scalar unit, then a word the scalar unit writes
// into UB and copies out. Every cross-pipe hand-over has its flag.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr uint64_t kInUb = 0x1000;
constexpr uint64_t kOutUb = 0x2000;

AICORE inline void PublishWord(__gm__ int32_t *dst, int32_t value)
{
    __ubuf__ int32_t *word = reinterpret_cast<__ubuf__ int32_t *>(kOutUb);
    word[0] = value;
    set_flag(PIPE_S, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_S, PIPE_MTE3, EVENT_ID1);
    copy_ubuf_to_gm(static_cast<__gm__ void *>(dst), static_cast<__ubuf__ void *>(word), 0, 1, 1, 0, 0);
}

extern "C" __global__ AICORE void count_marks(__gm__ int32_t *out, __gm__ int32_t *marks, int32_t lines)
{
    __ubuf__ int32_t *seen = (__ubuf__ int32_t *)kInUb;
    // one 32-byte block per line, 8 words each
    copy_gm_to_ubuf(static_cast<__ubuf__ void *>(seen), static_cast<__gm__ void *>(marks), 0, 1, lines, 0, 0);
    set_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    int32_t marked = 0;
    for (int32_t i = 0; i < lines; ++i) {
        if (seen[i * 8] != 0) {
            marked = marked + 1;
        }
    }
    int32_t first = seen[0];
    if (first != 0) {
        marked = marked + 100;
    }
    PublishWord(out + block_idx * 8, marked);
}
