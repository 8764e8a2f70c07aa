// A soft all-block barrier that only the first `joined` blocks take part in; the others leave a
// mark and return. `joined` is known only when the kernel is launched: `check` takes both ways
// of the test on it instead of asking for it.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int32_t kSlotInts = 8;  // one 32-byte slot per block
constexpr uint64_t kMarkUb = 0x0;
constexpr uint64_t kSeenUb = 0x400;

PTO_INTERNAL void PutMark(__gm__ int32_t *slot, int32_t mark)
{
    __ubuf__ int32_t *ub = reinterpret_cast<__ubuf__ int32_t *>(kMarkUb);
    ub[0] = mark;
    pipe_barrier(PIPE_ALL);
    copy_ubuf_to_gm(static_cast<__gm__ void *>(slot), static_cast<__ubuf__ void *>(ub), 0, 1, 1, 0, 0);
    pipe_barrier(PIPE_ALL);
}

extern "C" __global__ AICORE void partial_barrier(__gm__ int32_t *marks, __gm__ int32_t *counter, int32_t joined)
{
    const int32_t me = block_idx;
    if (me >= joined) {
        PutMark(marks + me * kSlotInts, -1);
        return;
    }
    PutMark(marks + me * kSlotInts, me);
    GlobalTensor<int32_t, pto::Shape<>, pto::Stride<>> workspace(counter);
    SYNCALL<SyncAllMode::Soft>(workspace, joined);
    // Every block that joined has written its mark: read them all back.
    __ubuf__ int32_t *seen = reinterpret_cast<__ubuf__ int32_t *>(kSeenUb);
    copy_gm_to_ubuf(static_cast<__ubuf__ void *>(seen), static_cast<__gm__ void *>(marks), 0, 1, joined, 0, 0);
#ifndef SKIP_DRAIN
    pipe_barrier(PIPE_ALL);
#endif
    int32_t sum = 0;
    for (int32_t i = 0; i < joined; ++i) {
        sum = sum + seen[i * kSlotInts];
    }
    PutMark(marks + me * kSlotInts, sum);
}
