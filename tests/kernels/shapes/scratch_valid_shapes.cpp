// Valid shapes given to a tile's constructor are not checked against its capacity by the
// library: they matter only where an instruction uses them. Here a scratch tile is declared
// one column wide with a 16x16 valid region (a scratch is used by its address, never by its
// valid shape), and a partial-max source has 8 valid rows but no valid column in a one-row
// tile (an empty region). The row broadcast spreads its 16-row vector over 512 bytes of the
// scratch, far past the 64 bytes the scratch tile holds: `spill`, loaded 256 bytes after the
// scratch's start with no flag between, races with it; 512 bytes after, it does not.
#include <pto/pto-inst.hpp>

using namespace pto;

using Wide = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, -1, -1>;
using Column = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, -1, -1>;
using OneRow = Tile<TileType::Vec, float, 1, 8, BLayout::RowMajor, -1, -1>;
using Rows8 = Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, -1, -1>;
using GmWide = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
using GmColumn = GlobalTensor<float, Shape<1, 1, 1, 16, 1>, Stride<1, 1, 1, 1, 1>, Layout::DN>;
using GmRows8 = GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<1, 1, 1, 8, 1>>;

template <int kSpill>
__global__ AICORE void scratch_valid_shapes(__gm__ float *out, __gm__ float *a, __gm__ float *b, __gm__ float *c)
{
    Wide src(16, 16);
    Wide dst(16, 16);
    Column vec(16, 1);
    Column tmp(16, 16);
    Rows8 spill(8, 8);
    OneRow none(8, 0);
    Rows8 part(8, 8);
    Rows8 keep(8, 8);
    TASSIGN(src, 0x0);
    TASSIGN(dst, 0x400);
    TASSIGN(vec, 0x800);
    TASSIGN(tmp, 0x1000);
    TASSIGN(spill, 0x1000 + kSpill);
    TASSIGN(none, 0x2000);
    TASSIGN(part, 0x2100);
    TASSIGN(keep, 0x2200);
    GmWide gSrc(a);
    GmColumn gVec(b);
    GmRows8 gSpill(c);
    GmWide gOut(out);
    TLOAD(src, gSrc);
    TLOAD(vec, gVec);
    TLOAD(keep, gSpill);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TLOAD(spill, gSpill);
    TROWEXPANDADD(dst, src, vec, tmp);
    TPARTMAX(part, none, keep);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(gOut, dst);
}

template __global__ AICORE void scratch_valid_shapes<0x100>(__gm__ float *, __gm__ float *, __gm__ float *,
                                                            __gm__ float *);
template __global__ AICORE void scratch_valid_shapes<0x200>(__gm__ float *, __gm__ float *, __gm__ float *,
                                                            __gm__ float *);
