// A flag the kernel wrote to GM, read back by the scalar unit straight from GM (ld_dev).
#include <pto/pto-inst.hpp>

using namespace pto;

#ifndef LOAD_OFFSET
#define LOAD_OFFSET 0
#endif

extern "C" __global__ AICORE void device_load(__gm__ int32_t *flag, __gm__ int32_t *out)
{
    __ubuf__ int32_t *ub = reinterpret_cast<__ubuf__ int32_t *>(0x0);
    ub[0] = 1;
    pipe_barrier(PIPE_ALL);
    copy_ubuf_to_gm(static_cast<__gm__ void *>(flag), static_cast<__ubuf__ void *>(ub), 0, 1, 1, 0, 0);
#ifndef SKIP_DRAIN
    pipe_barrier(PIPE_ALL);
#endif
    const int32_t seen = static_cast<int32_t>(ld_dev(reinterpret_cast<__gm__ uint32_t *>(flag), LOAD_OFFSET));
    ub[8] = seen;
    pipe_barrier(PIPE_ALL);
    copy_ubuf_to_gm(static_cast<__gm__ void *>(out), static_cast<__ubuf__ void *>(ub + 8), 0, 1, 1, 0, 0);
}
