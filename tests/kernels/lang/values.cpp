// Compile-time values the way pto-isa's top-k computes them: a constexpr helper with a deduced
// template parameter, a helper with loops that fills a scalar array through a pointer (run at
// compile time once the width it gets is known), a constexpr array, type traits in the body,
// run-time valid shapes read back with GetValidCol(), and a GM pointer parameter reassigned.
#include <pto/pto-inst.hpp>

using namespace pto;

template <typename T>
AICORE constexpr inline T RoundUp(T value, T unit)
{
    return (value + unit - 1) / unit * unit;
}

// Splits `cols` into runs of `first`, first / 4, ... (at least 32): how many of each fit in turn.
template <int Cols>
AICORE inline int32_t SplitRuns(int32_t *runs, int first)
{
    int32_t count = 0;
    int32_t left = Cols;
    for (int32_t len = first; len >= 32; len /= 4) {
        int32_t k;
        for (k = 0; k < left / len; k++) {
            runs[count++] = len;
        }
        left -= k * len;
    }
    return count;
}

template <typename T, int Valid>
AICORE void Runs(__gm__ T __out__ *out, __gm__ void __in__ *raw)
{
    constexpr int Cols = RoundUp(Valid, 64);
    constexpr int offsets[3] = {0, Cols, 2 * Cols};
    static_assert(Cols % 64 == 0, "whole blocks");
    using Row = Tile<TileType::Vec, T, 1, Cols, BLayout::RowMajor, -1, -1>;
    using Gm = GlobalTensor<T, Shape<1, 1, 1, 1, Cols>, Stride<1, 1, 1, Cols, 1>>;
    __gm__ T *in = (__gm__ T *)raw;
    Row x(1, Valid), y(1, Valid);
    Gm src(in + offsets[1]);
    TLOAD(x, src);

    uint32_t first = 32;
    for (; first * 4 <= Valid; first *= 4) {
    }
    int32_t runs[8] = {0};
    int32_t n = SplitRuns<Valid>(runs, first);
    int32_t done = 0;
    for (int i = 0; i < n; ++i) {
        Row part(1, runs[i]);
        TSUBVIEW(part, x, 0, done);
        if constexpr (std::is_same_v<T, float>) {
            TMULS(part, part, 2.0f);
        } else {
            TADDS(part, part, (T)1);
        }
        done += runs[i];
    }
    Row whole(1, x.GetValidCol());
    TRESHAPE(whole, x);
    TADDS(y, whole, 1.0f);
    Gm dst(out);
    TSTORE(dst, y);
    out = dst.data();
}

extern "C" __global__ AICORE void runs(__gm__ float *out, __gm__ void *in)
{
    Runs<float, 200>(out, in);
}
