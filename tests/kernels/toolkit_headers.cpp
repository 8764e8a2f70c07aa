// A kernel file that includes the Ascend toolkit's headers, as AscendC-era kernels and
// launchers do: GM_ADDR parameters and AscendC::GetBlockNum() from kernel_operator.h, a
// launcher with aclrtStream from acl/acl.h, runtime error codes from runtime/rt.h. Without
// the toolkit, the front end reads them through its parse-only stand-ins. The host code at the
// end (launcher, #ifndef __COSTMODEL section) is parsed and left alone.
#include "kernel_operator.h"
#include "acl/acl.h"
#include "runtime/rt.h"
#include <pto/pto-inst.hpp>

using namespace pto;

using TileT = Tile<TileType::Vec, half, 16, 128, BLayout::RowMajor, 16, 128>;
using GmT = GlobalTensor<half, Shape<1, 1, 1, 16, 128>, Stride<1, 1, 1, 128, 1>>;

extern "C" __global__ AICORE void toolkit_kernel(GM_ADDR out, GM_ADDR in)
{
    const int64_t blocks = AscendC::GetBlockNum();
    const int64_t offset = get_block_idx() * 16 * 128;
    TileT x;
    GmT src((__gm__ half *)in + offset);
    GmT dst((__gm__ half *)out + offset);
    TLOAD(x, src);
    TABS(x, x);
    TSTORE(dst, x);
    (void)blocks;
}

rtError_t LaunchToolkitKernel(uint32_t blocks, aclrtStream stream, uint8_t *out, uint8_t *in)
{
    toolkit_kernel<<<blocks, nullptr, stream>>>(out, in);
    return RT_ERROR_NONE;
}

#ifndef __COSTMODEL
// Host code only the real build compiles (pto-isa's cost-model build leaves it out).
int RunToolkitKernelOnce(uint8_t *out, uint8_t *in)
{
    aclrtStream stream = nullptr;
    if (aclrtCreateStream(&stream) != ACL_SUCCESS) {
        return -1;
    }
    LaunchToolkitKernel(1, stream, out, in);
    aclrtSynchronizeStream(stream);
    return aclrtDestroyStream(stream);
}
#endif
