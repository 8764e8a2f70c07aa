// One kernel for the whole cluster (the cube core and its two vector cores): the vector cores
// exchange slots in GM across a SYNCALL<SyncCoreType::Mix>, which every core of the launch meets.
#include "cluster_sides.hpp"

extern "C" __global__ AICORE void cluster_barrier(__gm__ int32_t *slots, __gm__ int32_t *counter)
{
    Publish(slots);
#if defined(READ_EARLY)
    ReadBoth(slots);  // before the barrier: the other vector core may not have written its slot yet
#endif
#if defined(SOFT_BARRIER)
    GlobalTensor<int32_t, pto::Shape<>, pto::Stride<>> workspace(counter);
    SYNCALL<SyncAllMode::Soft, SyncCoreType::Mix>(workspace);
#else
    (void)counter;
    SYNCALL<SyncCoreType::Mix>();
#endif
#if !defined(READ_EARLY)
    ReadBoth(slots);
#endif
}
