// Row statistics of one block (AUTO mode, a2a3 vector core): a softmax's chain, then the block
// scaled by its row maxima as a second output.
//   y = exp(x - rowmax(x)); z = y / rowsum(y); w = y * rowmax(x)
// On a2a3 the float row reductions end with a pipe_barrier(PIPE_V) of their own, and a row
// broadcast of a column vector drains PIPE_V between copying the column into the hidden UB
// scratch and computing; the rewrite counts on both and adds only what they leave unordered:
// TROWEXPANDSUB and TROWEXPANDDIV read what the reduction before them wrote (its own barrier),
// TEXP reads what TROWEXPANDSUB wrote after its barrier, TROWSUM reads TEXP's output before its
// work (its barrier comes last), and TROWEXPANDMUL overwrites the hidden scratch TROWEXPANDDIV
// reads back after its barrier. ROW_COLS = 96 (384 bytes a row, a scratch tile of 128 bytes a
// row) is the width at which pto-isa's reductions return before doing anything, barrier
// included: then the broadcasts after them need barriers of their own.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int ROWS = 16;
#ifndef ROW_COLS
#define ROW_COLS 128
#endif
constexpr int COLS = ROW_COLS;

extern "C" __global__ AICORE void row_statistics(__gm__ float *outZ, __gm__ float *outW, __gm__ float *in)
{
#if defined(__DAV_VEC__)
    using TileT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using ColT = Tile<TileType::Vec, float, ROWS, 1, BLayout::ColMajor, ROWS, 1>;
    using ScratchT = Tile<TileType::Vec, float, ROWS, 32, BLayout::RowMajor, ROWS, 32>;
    using GmT = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    TileT x;
    TileT y;
    TileT z;
    TileT w;
    ScratchT tmp;
    ColT rowMax;
    ColT rowSum;
    GmT gIn(in);
    GmT gZ(outZ);
    GmT gW(outW);
    TLOAD(x, gIn);
    TROWMAX(rowMax, x, tmp);
    TROWEXPANDSUB(y, x, rowMax);
    TEXP(y, y);
    TROWSUM(rowSum, y, tmp);
    TROWEXPANDDIV(z, y, rowSum);
    TROWEXPANDMUL(w, y, rowMax);
    TSTORE(gZ, z);
    TSTORE(gW, w);
#endif
}
