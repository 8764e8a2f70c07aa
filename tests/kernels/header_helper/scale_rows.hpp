// The vector step of scale_rows.cpp, kept in a header beside the kernel: it loads a block,
// scales it and stores it, so the pipes it uses need flags between its own statements.
#ifndef SCALE_ROWS_HPP
#define SCALE_ROWS_HPP
#include <pto/pto-inst.hpp>

template <typename TileT, typename GmT>
AICORE inline void scaleBlock(GmT &dst, GmT &src, TileT &tile, float factor)
{
    pto::TLOAD(tile, src);
    pto::TMULS(tile, tile, factor);
    pto::TSTORE(dst, tile);
}
#endif
