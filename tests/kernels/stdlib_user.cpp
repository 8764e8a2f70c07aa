// A kernel that uses the C++ standard library as kernels built by the real toolchain do:
// fixed-width integers, std::size_t and type traits (clang's builtin headers plus the
// system's libstdc++).
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr std::size_t STD_ROWS = 16;
constexpr std::uint32_t STD_COLS = 64;
static_assert(std::is_same_v<std::int32_t, int>, "int32_t is int on every Ascend host");

template <typename T>
AICORE void scaleTile(__gm__ T *out, __gm__ T *in)
{
    using TileT = Tile<TileType::Vec, T, STD_ROWS, STD_COLS, BLayout::RowMajor, STD_ROWS, STD_COLS>;
    using GmT = GlobalTensor<T, Shape<1, 1, 1, STD_ROWS, STD_COLS>, Stride<1, 1, 1, STD_COLS, 1>>;
    TileT x;
    GmT src(in);
    GmT dst(out);
    TLOAD(x, src);
    if constexpr (std::is_same_v<T, float>) {
        TEXP(x, x);
    } else {
        TABS(x, x);
    }
    TSTORE(dst, x);
}

extern "C" __global__ AICORE void std_kernel(__gm__ float *out, __gm__ float *in)
{
    scaleTile<float>(out, in);
}
