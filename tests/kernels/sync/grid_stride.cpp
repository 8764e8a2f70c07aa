// Blocks share eight tiles round robin: block b handles b, b + num, b + 2 num, ...
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void round_robin(__gm__ float *out, __gm__ float *in)
{
    TileT x[2];
    const int first = get_block_idx();
    const int stride = get_block_num();
    for (int i = first; i < 8; i += stride) {
        GmT g(in + i * 512);
        GmT o(out + i * 512);
        TLOAD(x[i % 2], g);
        TADDS(x[i % 2], x[i % 2], 1.0f);
        TSTORE(o, x[i % 2]);
    }
}
