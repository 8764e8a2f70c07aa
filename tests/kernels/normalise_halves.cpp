// The final normalisation of an attention output (AUTO mode), as the flash-attention sample ends:
// the row sums are the total of two partial sums, and the output is divided by them one column
// half at a time, each divide with a scratch tile of its own, so that the left half's store can
// overlap the right half's divide. The two divides read the same sums and touch distinct bytes:
// nothing orders them against each other; each needs the TADD of the sums before it.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int ROWS = 16;
constexpr int COLS = 128;

extern "C" __global__ AICORE void normalise_halves(__gm__ float *out, __gm__ float *acc, __gm__ float *sums)
{
#if defined(__DAV_VEC__)
    using AccT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using ColsT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS / 2>;
    using RowT = Tile<TileType::Vec, float, ROWS, 1, BLayout::ColMajor, ROWS, 1>;
    using Scratch = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 8, 64>;
    using GmAcc = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    using GmHalf = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS / 2>, Stride<1, 1, 1, COLS, 1>>;
    using GmRow = GlobalTensor<float, Shape<1, 1, 1, ROWS, 1>, Stride<1, 1, 1, 1, 1>>;
    AccT o;
    RowT partA;
    RowT partB;
    RowT sum;
    Scratch tmpLeft;
    Scratch tmpRight;
    GmAcc gAcc(acc);
    GmRow gPartA(sums);
    GmRow gPartB(sums + ROWS);
    GmHalf gOutLeft(out);
    GmHalf gOutRight(out + COLS / 2);
    TLOAD(o, gAcc);
    TLOAD(partA, gPartA);
    TLOAD(partB, gPartB);
    TADD(sum, partA, partB);
    ColsT oLeft;
    ColsT oRight;
    TSUBVIEW(oLeft, o, 0, 0);
    TSUBVIEW(oRight, o, 0, COLS / 2);
    TROWEXPANDDIV(oLeft, oLeft, sum, tmpLeft);
    TROWEXPANDDIV(oRight, oRight, sum, tmpRight);
    TSTORE(gOutLeft, oLeft);
    TSTORE(gOutRight, oRight);
#endif
}
