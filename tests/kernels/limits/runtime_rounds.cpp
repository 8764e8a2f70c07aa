// Trip counts from run-time arguments: `rows` tiles per round, `rounds` rounds, and a
// triangular tail whose trip count grows with the round (known only while running).
#include <pto/pto-inst.hpp>

using namespace pto;

__global__ AICORE void runtimeRounds(__gm__ float *out, __gm__ float *in, int rows, int rounds)
{
    using Row = Tile<TileType::Vec, float, 8, 64>;
    using View = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
    Row acc;
    for (int round = 0; round < rounds; ++round) {
        for (int r = 0; r < rows; ++r) {
            View src(in + r * 512);
            TLOAD(acc, src);
            TADD(acc, acc, acc);
            View dst(out + r * 512);
            TSTORE(dst, acc);
        }
        for (int extra = 0; extra < round; ++extra) {
            TADDS(acc, acc, 1.0f);
        }
    }
}
