// Bad input: host code only (a launcher's helpers), no __global__ kernel to analyse.
#include "acl/acl.h"

static int RoundUpBlocks(int elements, int perBlock)
{
    return (elements + perBlock - 1) / perBlock;
}

void PrepareStream(aclrtStream *stream)
{
    aclrtCreateStream(stream);
}
