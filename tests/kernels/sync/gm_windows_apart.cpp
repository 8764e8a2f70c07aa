// A block read back from the output and stored again, then a nested loop that loads other
// blocks of the output: blocks 3, 4, 7, 8, 11 and 12, never block 21. The store and the loads
// share no byte, so no MTE3 -> MTE2 flag orders them. Then a runtime number of stores from
// block 50 on, and a store to block 0: below every one of them, so no MTE3 barrier either.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
constexpr int E = 512;
extern "C" __global__ AICORE void windows_apart(__gm__ float *out, int n)
{
    TileT x, ring[2];
    GmT kept(out + 21 * E);
    TLOAD(x, kept);
    TADDS(x, x, 1.0f);
    TSTORE(kept, x);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 2; j++) {
            GmT g(out + (i * 4 + j + 3) * E);
            TLOAD(ring[j], g);
        }
        TADD(x, ring[0], ring[1]);
        GmT o(out + (i + 40) * E);
        TSTORE(o, x);
    }
    for (int i = 0; i < n; ++i) {
        GmT tail(out + (i + 50) * E);
        TSTORE(tail, x);
    }
    GmT head(out);
    TSTORE(head, x);
}
