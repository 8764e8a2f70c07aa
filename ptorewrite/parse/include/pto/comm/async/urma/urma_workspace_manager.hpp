// ptorewrite parse-only declarations: the host-side owner of the URMA (remote memory access)
// channels a5 communication kernels use, as pto-isa's tests name it. Host code only; no semantics.
#pragma once

#include <stdint.h>

#include "hccl/hccl_types.h"

namespace pto {
namespace comm {
namespace urma {
class UrmaWorkspaceManager {
public:
    // register the symmetric memory of every rank and open the channels between them
    bool Init(HcclComm comm, uint32_t rankId, uint32_t rankCount, void *symmetricAddr, uint64_t symmetricSize);
    void Finalize();
    void *GetWorkspaceAddr() const;  // the device table a kernel's URMA calls use
};
} // namespace urma
} // namespace comm
} // namespace pto
