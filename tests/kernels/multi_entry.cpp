// Two kernel entry functions in one file sharing a helper template whose `if constexpr`
// picks the instruction: each kernel runs only its own branch.
#include <pto/pto-inst.hpp>

using namespace pto;

using TileT = Tile<TileType::Vec, float, 16, 128, BLayout::RowMajor, 16, 128>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 128>, Stride<1, 1, 1, 128, 1>>;

template <int OP>
AICORE void unaryKernel(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    GmT src(in);
    GmT dst(out);
    TLOAD(x, src);
    if constexpr (OP == 0) {
        TEXP(x, x);
    } else {
        TABS(x, x);
    }
    TSTORE(dst, x);
}

extern "C" __global__ AICORE void exp_kernel(__gm__ uint8_t *out, __gm__ uint8_t *in)
{
    unaryKernel<0>(reinterpret_cast<__gm__ float *>(out), reinterpret_cast<__gm__ float *>(in));
}

extern "C" __global__ AICORE void abs_kernel(__gm__ uint8_t *out, __gm__ uint8_t *in)
{
    unaryKernel<1>(reinterpret_cast<__gm__ float *>(out), reinterpret_cast<__gm__ float *>(in));
}
