// ptorewrite parse-only stand-in for the Ascend toolkit's hccl/hccl_types.h (see ../README.md).
// Used only when the real header is not on the include path. Declarations only.
#ifndef PTOREWRITE_TOOLKIT_HCCL_TYPES_H
#define PTOREWRITE_TOOLKIT_HCCL_TYPES_H

// The result of a collective-communication library call: zero is success.
typedef enum { HCCL_SUCCESS = 0, HCCL_E_PARA = 1, HCCL_E_INTERNAL = 4 } HcclResult;
// A communicator is an opaque handle.
typedef void *HcclComm;
#if defined(__CPU_SIM) && defined(__has_include)
#if __has_include(<pto/common/cpu_stub.hpp>)
// pto-isa's CPU simulator declares HcclRootInfo itself.
#include <pto/common/cpu_stub.hpp>
#define PTOREWRITE_HCCL_ROOT_INFO_FROM_CPU_SIM 1
#endif
#endif

// The bytes rank 0 hands to every rank to form a communicator.
#define HCCL_ROOT_INFO_BYTES 4108
#ifndef PTOREWRITE_HCCL_ROOT_INFO_FROM_CPU_SIM
typedef struct {
    char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;
#endif

#endif // PTOREWRITE_TOOLKIT_HCCL_TYPES_H
