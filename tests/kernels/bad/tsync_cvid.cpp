// A kernel that takes its cluster's slot of a communication buffer from pto::TSYNC_CVID: the slot
// comes from the physical core id, handed from the cube core to the vector cores through GM and
// an ffts flag, so the GM region the kernel then uses is known only on the device.
#include <pto/pto-inst.hpp>
#include <pto/npu/a2a3/custom/TSyncCVID.hpp>

using namespace pto;

using TileT = Tile<TileType::Vec, float, 16, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

extern "C" __global__ AICORE void tsync_cvid(__gm__ float *out, __gm__ uint8_t *comm)
{
    int slot = block_idx;
    slot = pto::TSYNC_CVID(block_idx, comm);
    TileT t;
    GmT g(out + slot * 1024);
    TLOAD(t, g);
    TMULS(t, t, 2.0f);
    TSTORE(g, t);
}
