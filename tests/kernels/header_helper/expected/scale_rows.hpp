// The vector step of scale_rows.cpp, kept in a header beside the kernel: it loads a block,
// scales it and stores it, so the pipes it uses need flags between its own statements.
#ifndef SCALE_ROWS_HPP
#define SCALE_ROWS_HPP
#include <pto/pto-inst.hpp>

template <typename TileT, typename GmT>
AICORE inline void scaleBlock(GmT &dst, GmT &src, TileT &tile, float factor)
{
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // WAR tile: MTE3 -> MTE2 (next iteration)
    pto::TLOAD(tile, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW tile: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW tile: MTE2 -> V
    pto::TMULS(tile, tile, factor);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW tile: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW tile: V -> MTE3
    pto::TSTORE(dst, tile);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // WAR tile: MTE3 -> MTE2 (next iteration)
}
#endif
