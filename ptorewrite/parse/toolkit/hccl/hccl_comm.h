// ptorewrite parse-only stand-in for the Ascend toolkit's hccl/hccl_comm.h (see ../README.md).
// Used only when the real header is not on the include path. Declarations only: the host calls
// that form, name, synchronize and free a communicator.
#ifndef PTOREWRITE_TOOLKIT_HCCL_COMM_H
#define PTOREWRITE_TOOLKIT_HCCL_COMM_H

#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif
HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
HcclResult HcclCommInitRootInfo(__UINT32_TYPE__ nRanks, const HcclRootInfo *rootInfo, __UINT32_TYPE__ rank,
                                HcclComm *comm);
HcclResult HcclGetCommName(HcclComm comm, char *commName);
HcclResult HcclBarrier(HcclComm comm, void *stream);
HcclResult HcclCommDestroy(HcclComm comm);
#ifdef __cplusplus
}
#endif

#endif // PTOREWRITE_TOOLKIT_HCCL_COMM_H
