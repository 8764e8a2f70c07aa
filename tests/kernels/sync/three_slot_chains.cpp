// Three inputs per step, each loaded into its own three-deep ring (x[i % 3]); nine MTE2 -> V
// ids would be live with one per slot, more than the eight a pipe pair has.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
extern "C" __global__ AICORE void three_rings(__gm__ float *out, __gm__ float *pa, __gm__ float *pb, __gm__ float *pc)
{
    TileT a[3];
    TileT b[3];
    TileT c[3];
    for (int i = 0; i < 6; ++i) {
        GmT ga(pa + i * 512);
        GmT gb(pb + i * 512);
        GmT gc(pc + i * 512);
        GmT go(out + i * 512);
        TLOAD(a[i % 3], ga);
        TADDS(a[i % 3], a[i % 3], 1.0f);
        TLOAD(b[i % 3], gb);
        TADD(a[i % 3], a[i % 3], b[i % 3]);
        TLOAD(c[i % 3], gc);
        TADD(a[i % 3], a[i % 3], c[i % 3]);
        TSTORE(go, a[i % 3]);
    }
}
