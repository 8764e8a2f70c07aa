// What each core of the cluster does; the kernel file including this names no core type itself.
#pragma once
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr uint64_t kOwnUb = 0x0;
constexpr uint64_t kBothUb = 0x100;

// Each vector core publishes one 32-byte slot, then after the barrier reads both slots.
PTO_INTERNAL void Publish(__gm__ int32_t *slots)
{
#if defined(__DAV_VEC__)
    __ubuf__ int32_t *own = reinterpret_cast<__ubuf__ int32_t *>(kOwnUb);
    own[0] = static_cast<int32_t>(get_subblockid()) + 1;
    pipe_barrier(PIPE_ALL);
    copy_ubuf_to_gm(static_cast<__gm__ void *>(slots + get_subblockid() * 8), static_cast<__ubuf__ void *>(own), 0,
                    1, 1, 0, 0);
#elif defined(__DAV_CUBE__)
    (void)slots;  // the cube core publishes nothing
#endif
}

PTO_INTERNAL void ReadBoth(__gm__ int32_t *slots)
{
#if defined(__DAV_VEC__)
    __ubuf__ int32_t *both = reinterpret_cast<__ubuf__ int32_t *>(kBothUb);
    copy_gm_to_ubuf(static_cast<__ubuf__ void *>(both), static_cast<__gm__ void *>(slots), 0, 1, 2, 0, 0);
    pipe_barrier(PIPE_ALL);
#elif defined(__DAV_CUBE__)
    (void)slots;
#endif
}
