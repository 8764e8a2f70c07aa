// An a5 test kernel written the way pto-isa's single-instruction tests are: it includes an
// instruction's implementation header and the debug header by their own paths, keeps 8-bit
// float tiles, warms the instruction cache before the timed part, asks the layout helper which
// copy path a tile needs, calls one instruction through its implementation entry point, and
// ends with an all-core barrier. Every name comes from the bundled parse-only declarations.
#include <pto/pto-inst.hpp>
#include <pto/common/constants.hpp>
#include <pto/common/debug.h>
#include <pto/npu/a5/TQuant.hpp>

using namespace pto;

constexpr int kRows = 16;
constexpr int kCols = 64;

template <typename TileData>
AICORE inline void ExpandColumns(TileData &dst, TileData &src)
{
    if constexpr (GetTileLayoutCustom<TileData>() == TileLayoutCustom::ND) {
        TCOLEXPAND_IMPL(dst, src);
    } else {
        TMOV(dst, src);
    }
}

extern "C" __global__ AICORE void npu_builtins(__gm__ float8_e4m3_t *out, __gm__ float8_e4m3_t *in)
{
    uint64_t pc = 0;
    preload((void *)pc, 2);
    PTO_ASSERT(kCols % 32 == 0, "whole 32-byte rows");

    using ByteTile = Tile<TileType::Vec, float8_e4m3_t, kRows, kCols, BLayout::RowMajor, kRows, kCols>;
    using ByteGm = GlobalTensor<float8_e4m3_t, Shape<1, 1, 1, kRows, kCols>, Stride<1, 1, 1, kCols, 1>>;
    ByteTile row;
    ByteTile rows;
    TASSIGN(row, 0x0);
    TASSIGN(rows, 0x400);
    ByteGm src(in);
    ByteGm dst(out);

    TLOAD(row, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    ExpandColumns(rows, row);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, rows);
    pipe_barrier(PIPE_ALL);
    SYNCALL();
}
