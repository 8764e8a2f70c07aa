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

// Registering a device binary and launching a kernel of it by handle (host code that launches
// a mixed cube/vector kernel from its own ELF).
#define RT_DEV_BINARY_MAGIC_ELF 0x43554245U
typedef struct {
    __UINT32_TYPE__ magic;
    __UINT32_TYPE__ version;
    const void *data;
    __UINT64_TYPE__ length;
} rtDevBinary_t;
typedef struct {
    void *args;
    void *hostInputInfoPtr;
    __UINT32_TYPE__ argsSize;
    __UINT32_TYPE__ tilingAddrOffset;
    __UINT32_TYPE__ tilingDataOffset;
    __UINT16_TYPE__ hostInputInfoNum;
    __UINT8_TYPE__ hasTiling;
    __UINT8_TYPE__ isNoNeedH2DCopy;
} rtArgsEx_t;
typedef struct {
    __UINT8_TYPE__ qos;
    __UINT8_TYPE__ partId;
    __UINT8_TYPE__ schemMode;
    __UINT8_TYPE__ reserved[5];
} rtTaskCfgInfo_t;
rtError_t rtRegisterAllKernel(const rtDevBinary_t *bin, void **handle);
rtError_t rtBinaryLoadWithoutTilingKey(const void *data, __UINT64_TYPE__ length, void **handle);
rtError_t rtKernelLaunchWithHandleV2(void *handle, __UINT64_TYPE__ tilingKey, __UINT32_TYPE__ blockDim,
                                     rtArgsEx_t *argsInfo, void *smDesc, rtStream_t stream,
                                     const rtTaskCfgInfo_t *cfgInfo);

#endif // PTOREWRITE_TOOLKIT_RUNTIME_RT_H
