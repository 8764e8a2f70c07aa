// A vector kernel whose loop runs a billion times: the emulator must refuse it at once.
#include <pto/pto-inst.hpp>

using namespace pto;

__global__ AICORE void billionAuto(__gm__ float *out, __gm__ float *in)
{
    using Row = Tile<TileType::Vec, float, 8, 64>;
    using View = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
    Row acc;
    for (long long pass = 0; pass < 1000000000; ++pass) {
        View src(in);
        TLOAD(acc, src);
        TMULS(acc, acc, 2.0f);
        View dst(out);
        TSTORE(dst, acc);
    }
}
