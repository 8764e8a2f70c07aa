// A SYNCALL test kernel: no tile instruction, only the all-core barrier.
#include <pto/pto-inst.hpp>

using namespace pto;

PTO_SYNCALL_AIC_KERNEL_META(barrier_only);

extern "C" __global__ AICORE void barrier_only(__gm__ int32_t *out)
{
    (void)out;
    SYNCALL<SyncCoreType::AICOnly>();
}
