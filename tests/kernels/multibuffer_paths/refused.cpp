// Tiles that stay single: in some iteration a value of an earlier one may be read.
// `odd` is loaded only in even steps (an `if` decided at run time) and read in every step;
// `patched` gets a TINSERT of one row block (the rest is the earlier step's); `running` is read
// before it is written (an accumulation); `tail` is loaded inside a loop of `parts` runs (maybe
// none) and read after it.
#include "common.hpp"

constexpr int PART_ROWS = 8;
using PartT = Tile<TileType::Vec, float, PART_ROWS, COLS, BLayout::RowMajor, PART_ROWS, COLS>;
using PartGm = GlobalTensor<float, Shape<1, 1, 1, PART_ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;

extern "C" __global__ AICORE void refused(__gm__ float *out, __gm__ float *kept, __gm__ float *x, int parts)
{
    BlockT odd;
    BlockT patched;
    BlockT running;
    BlockT tail;
    BlockT res;
    PartT part;
    for (int b = 0; b < STEPS; ++b) {
        BlockGm src(x + b * BLOCK);
        BlockGm dst(out + b * BLOCK);
        if (b % 2 == 0) {
            TLOAD(odd, src);
        }
        TEXP(res, odd);
        PartGm rows(x + b * BLOCK);
        TLOAD(part, rows);
        TINSERT(patched, part, 0, 0);
        TADD(res, res, patched);
        TADD(running, running, res);
        BlockGm patched_dst(kept + b * 2 * BLOCK);
        BlockGm running_dst(kept + b * 2 * BLOCK + BLOCK);
        TSTORE(patched_dst, patched);
        TSTORE(running_dst, running);
        for (int p = 0; p < parts; ++p) {
            TLOAD(tail, src);
        }
        TADD(res, running, tail);
        TSTORE(dst, res);
    }
}
