// A type selector written as a class template with partial specializations (pto-isa's tests pick
// a tile's pad value this way), with a static constexpr member read through it.
#include <pto/pto-inst.hpp>

using namespace pto;

template <typename T, int Rows, int Cols, bool Narrow>
struct TileFor;

template <typename T, int Rows, int Cols>
struct TileFor<T, Rows, Cols, false> {
    using Type = Tile<TileType::Vec, T, Rows, Cols, BLayout::RowMajor, -1, -1>;
    static constexpr int ValidCols = Cols;
};

template <typename T, int Rows, int Cols>
struct TileFor<T, Rows, Cols, true> {
    using Type = Tile<TileType::Vec, T, Rows, Cols / 2, BLayout::RowMajor, -1, -1>;
    static constexpr int ValidCols = Cols / 2 - 8;
};

template <typename T, bool Narrow>
AICORE void Select(__gm__ T *out, __gm__ T *in)
{
    using Sel = TileFor<T, 16, 128, Narrow>;
    using TileData = typename Sel::Type;
    using Gm = GlobalTensor<T, Shape<1, 1, 1, 16, Sel::ValidCols>, Stride<1, 1, 1, 128, 1>>;
    TileData x(16, Sel::ValidCols), y(16, TileFor<T, 16, 128, Narrow>::ValidCols);
    Gm src(in), dst(out);
    TLOAD(x, src);
    TEXP(y, x);
    TSTORE(dst, y);
}

extern "C" __global__ AICORE void selector(__gm__ float *out, __gm__ float *in)
{
    Select<float, true>(out, in);
}
