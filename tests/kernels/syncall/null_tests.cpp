// Pointers tested against nullptr: `out` is written on every run (a launch passing nullptr for it
// would fault), so only `extra` is checked both null and not null.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void null_tests(__gm__ int32_t *out, __gm__ int32_t *extra)
{
    __ubuf__ int32_t *ub = reinterpret_cast<__ubuf__ int32_t *>(0x0);
    ub[0] = 1;
    pipe_barrier(PIPE_ALL);
    copy_ubuf_to_gm(static_cast<__gm__ void *>(out), static_cast<__ubuf__ void *>(ub), 0, 1, 1, 0, 0);
    __gm__ int32_t *second = out + 8;
    if (second != nullptr) {
        copy_ubuf_to_gm(static_cast<__gm__ void *>(second), static_cast<__ubuf__ void *>(ub), 0, 1, 1, 0, 0);
    }
    if (extra != nullptr) {
        copy_ubuf_to_gm(static_cast<__gm__ void *>(extra), static_cast<__ubuf__ void *>(ub), 0, 1, 1, 0, 0);
    }
}
