// ptorewrite parse-only stand-in for the Ascend toolkit's runtime/rt.h (see ../README.md).
// Used only when the real header is not on the include path. Declarations only.
#ifndef PTOREWRITE_TOOLKIT_RUNTIME_RT_H
#define PTOREWRITE_TOOLKIT_RUNTIME_RT_H

typedef int rtError_t;
typedef void *rtStream_t;
#define RT_ERROR_NONE 0
#define RT_STREAM_PRIORITY_DEFAULT 0

rtError_t rtSetDevice(int device);
rtError_t rtStreamCreate(rtStream_t *stream, int priority);
rtError_t rtStreamDestroy(rtStream_t stream);
rtError_t rtGetC2cCtrlAddr(__UINT64_TYPE__ *addr, __UINT32_TYPE__ *len);

#endif // PTOREWRITE_TOOLKIT_RUNTIME_RT_H
