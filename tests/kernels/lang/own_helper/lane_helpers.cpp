// An AUTO kernel in the shapes of pto-isa's own AUTO kernels: the folder's own copy of the
// MultiBuffered helper, helpers called from the loop body that declare tiles of their own, a
// TSUBVIEW scratch row placed just past the tile it views (the AUTO compiler aliases by byte
// offset), and a TMOV between Vec tiles of different valid widths (the columns both have move).
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

constexpr int W = 64;     // columns of a row
constexpr int KEEP = 48;  // columns written back per row
constexpr int ROWS = 6;

using RowT = Tile<TileType::Vec, float, 1, W, BLayout::RowMajor, -1, -1>;
using KeyT = Tile<TileType::Vec, float, 1, W, BLayout::RowMajor, 1, W>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, W>, Stride<W, W, W, W, 1>>;
using KeptGm = GlobalTensor<float, Shape<1, 1, 1, 1, KEEP>, Stride<KEEP, KEEP, KEEP, KEEP, 1>>;

template <typename Keys>
AICORE inline void Blend(RowT &row, Keys &keys)
{
    RowT scratch(1, W);
    TSUBVIEW(scratch, keys, 0, W);  // the row of bytes right after `keys`
    TADD(scratch, row, keys);
    TMULS(row, scratch, 0.5f);
}

AICORE inline void WriteHead(__gm__ float *dst, RowT &row)
{
    RowT head(1, KEEP);
    TRESHAPE(head, row);
    RowT wide(1, W);
    TMOV(wide, head);  // Vec to Vec: only the KEEP columns both tiles hold
    KeptGm g(dst);
    TSTORE(g, wide);
}

__global__ AICORE void lane_helpers(__gm__ float *out, __gm__ float *in, __gm__ float *key)
{
    KeyT keys;
    RowGm keyGm(key);
    TLOAD(keys, keyGm);
    MultiBuffered<2> rows;
    rows.loop<Range<ROWS>>([&](auto step) {
        int r = step.iter;
        RowT row(1, W);
        RowGm src(in + r * W);
        TLOAD(row, src);
        Blend(row, keys);
        WriteHead(out + r * KEEP, row);
    });
}
