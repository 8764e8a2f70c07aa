// Tiles chosen at run time and valid shapes set on them, as pto-isa's MoE dispatch kernel
// writes its ping-pong copies: `auto &cur = odd ? pong : ping;` picks a staging tile per chunk
// (the parity comes from a counter, not from the loop variable), and the chunk's row count is
// written into the tile (`RowMaskInternal`, `SetValidCol`). Each chunk is loaded on MTE2 and
// stored on MTE3; the store of the previous chunk in the same tile must finish first. RACY
// leaves that wait out for the pong tile.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int kRows = 8;
constexpr int kCols = 256;
using Stage = Tile<TileType::Vec, int8_t, kRows, kCols, BLayout::RowMajor, -1, -1>;
using ChunkGm = GlobalTensor<int8_t, Shape<1, 1, 1, kRows, kCols>, Stride<1, 1, 1, kCols, 1>>;

extern "C" __global__ AICORE void tile_choice(__gm__ int8_t *src, __gm__ int8_t *dst, int chunks, int lastRows)
{
    Stage ping(kRows, kCols);
    Stage pong(kRows, kCols);
    TASSIGN(ping, 0x0);
    TASSIGN(pong, 0x800);
    int parity = 0;
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
    for (int c = 0; c < chunks; ++c) {
        auto &cur = parity ? pong : ping;
        event_t ev = parity ? EVENT_ID1 : EVENT_ID0;
        cur.RowMaskInternal = (c == chunks - 1) ? lastRows : kRows;
        cur.SetValidCol(kCols);
        ChunkGm in(src + c * kRows * kCols), out(dst + c * kRows * kCols);
#ifdef RACY
        if (parity == 0) {
            wait_flag(PIPE_MTE3, PIPE_MTE2, ev);
        }
#else
        wait_flag(PIPE_MTE3, PIPE_MTE2, ev);
#endif
        TLOAD(cur, in);
        set_flag(PIPE_MTE2, PIPE_MTE3, ev);
        wait_flag(PIPE_MTE2, PIPE_MTE3, ev);
        TSTORE(out, cur);
#ifdef RACY
        if (parity == 0) {
            set_flag(PIPE_MTE3, PIPE_MTE2, ev);
        }
#else
        set_flag(PIPE_MTE3, PIPE_MTE2, ev);
#endif
        parity = 1 - parity;
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);
}
