// Two AUTO kernels sharing one helper of fold.hpp. In fold_many the running sum stays in UB and
// only the next block is loaded before each fold, so the fold's add is what waits for the load;
// in fold_once the sum is loaded too, and the fold waits at its first instruction.
#include <pto/pto-inst.hpp>
#include "fold.hpp"

using namespace pto;

constexpr int ROWS = 16;
constexpr int COLS = 64;
using Gm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
using Block = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;

extern "C" __global__ AICORE void fold_many(__gm__ float *out, __gm__ float *in, int blocks)
{
    Block sum;
    Block next;
    Gm first(in);
    TLOAD(sum, first);
    for (int b = 1; b < blocks; ++b) {
        Gm src(in + b * ROWS * COLS);
        TLOAD(next, src);
        foldBlock(sum, next);
    }
    Gm dst(out);
    TSTORE(dst, sum);
}

extern "C" __global__ AICORE void fold_once(__gm__ float *out, __gm__ float *a, __gm__ float *b)
{
    Block sum;
    Block next;
    Gm srcA(a);
    Gm srcB(b);
    TLOAD(sum, srcA);
    TLOAD(next, srcB);
    foldBlock(sum, next);
    Gm dst(out);
    TSTORE(dst, sum);
}
