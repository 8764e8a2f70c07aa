// ptorewrite parse-only stand-in for the Ascend toolkit's acl/acl.h (see ../README.md).
// Used only when the real header is not on the include path. Declarations only.
#ifndef PTOREWRITE_TOOLKIT_ACL_H
#define PTOREWRITE_TOOLKIT_ACL_H

#if defined(__CPU_SIM) && defined(__has_include)
#if __has_include(<pto/common/cpu_stub.hpp>)
// pto-isa's CPU simulator defines the launcher's acl calls and types itself.
#include <pto/common/cpu_stub.hpp>
#define PTOREWRITE_ACL_FROM_CPU_SIM 1
#endif
#endif

typedef int aclError;
#ifndef ACL_SUCCESS
#define ACL_SUCCESS 0
#endif
typedef void *aclrtEvent;
typedef void *aclrtContext;

#ifndef PTOREWRITE_ACL_FROM_CPU_SIM
typedef void *aclrtStream;
typedef __UINT16_TYPE__ aclFloat16;
typedef __SIZE_TYPE__ ptorewrite_acl_size_t;

// Element types and layouts of a host tensor description (aclCreateTensor).
typedef enum { ACL_DT_UNDEFINED = -1, ACL_FLOAT = 0, ACL_FLOAT16 = 1, ACL_INT8 = 2, ACL_INT32 = 3, ACL_UINT8 = 4,
               ACL_INT16 = 6, ACL_UINT16 = 7, ACL_UINT32 = 8, ACL_INT64 = 9, ACL_UINT64 = 10, ACL_BF16 = 27 } aclDataType;
typedef enum { ACL_FORMAT_UNDEFINED = -1, ACL_FORMAT_NCHW = 0, ACL_FORMAT_NHWC = 1, ACL_FORMAT_ND = 2 } aclFormat;
enum aclrtMemMallocPolicy { ACL_MEM_MALLOC_HUGE_FIRST = 0, ACL_MEM_MALLOC_HUGE_ONLY = 1, ACL_MEM_MALLOC_NORMAL_ONLY = 2 };
enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
};

aclError aclInit(const char *configPath);
aclError aclFinalize();
aclError aclrtSetDevice(int deviceId);
aclError aclrtResetDevice(int deviceId);
aclError aclrtGetDeviceCount(unsigned int *count);
aclError aclrtCreateStream(aclrtStream *stream);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtMalloc(void **devPtr, ptorewrite_acl_size_t size, aclrtMemMallocPolicy policy);
aclError aclrtMallocHost(void **hostPtr, ptorewrite_acl_size_t size);
aclError aclrtFree(void *devPtr);
aclError aclrtFreeHost(void *hostPtr);
aclError aclrtMemcpy(void *dst, ptorewrite_acl_size_t destMax, const void *src, ptorewrite_acl_size_t count,
                     aclrtMemcpyKind kind);
aclError aclrtMemset(void *devPtr, ptorewrite_acl_size_t maxCount, int value, ptorewrite_acl_size_t count);
// Cache maintenance of a device range, queued on a stream (prefetch, write back, invalidate).
typedef enum { ACL_RT_CMO_TYPE_PREFETCH = 0, ACL_RT_CMO_TYPE_WRITEBACK, ACL_RT_CMO_TYPE_INVALID,
               ACL_RT_CMO_TYPE_FLUSH } aclrtCmoType;
aclError aclrtCmoAsync(void *src, ptorewrite_acl_size_t size, aclrtCmoType cmoType, aclrtStream stream);
float aclFloat16ToFloat(aclFloat16 value);
aclFloat16 aclFloatToFloat16(float value);
#endif

aclError aclrtCreateEvent(aclrtEvent *event);
aclError aclrtDestroyEvent(aclrtEvent event);
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtEventElapsedTime(float *ms, aclrtEvent start, aclrtEvent end);
const char *aclGetRecentErrMsg();

#endif // PTOREWRITE_TOOLKIT_ACL_H
