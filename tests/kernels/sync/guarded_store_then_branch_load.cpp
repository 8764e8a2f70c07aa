// Every other step publishes a block to `shared` (a store under `if`, inside a loop of one
// lane) before a long store of its own; the next helper reads `shared` back in both branches of
// `if (t == 0)`. The read waits only for the publishing store: the flag is set right after that
// store, inside its branch, and waited before the reader's `if` under the same condition read
// with the lane loop's one value (`(t % 2) == 0`), not after the long store.
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 8, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

AICORE inline void publish(int t, int lane, TileT &x, TileT &big, __gm__ float *shared, __gm__ float *log)
{
    if (lane == 0 && t % 2 == 0) {
        GmT s(shared);
        TSTORE(s, x);
    }
    GmT l(log + t * 512);
    TSTORE(l, big);
}

AICORE inline void take(int t, TileT &acc, TileT &in, __gm__ float *shared)
{
    GmT s(shared);
    if (t == 0) {
        TLOAD(acc, s);
    } else {
        TLOAD(in, s);
        TADD(acc, acc, in);
    }
}

extern "C" __global__ AICORE void publish_take(__gm__ float *out, __gm__ float *shared, __gm__ float *log,
                                               __gm__ float *src)
{
    TileT x;
    TileT big;
    TileT acc;
    TileT in;
    for (int t = 0; t < 6; ++t) {
        GmT g(src + t * 512);
        TLOAD(x, g);
        TADDS(big, x, 1.0f);
        for (int lane = 0; lane < 1; ++lane) {
            publish(t, lane, x, big, shared, log);
        }
        take(t, acc, in, shared);
    }
    GmT o(out);
    TSTORE(o, acc);
}
