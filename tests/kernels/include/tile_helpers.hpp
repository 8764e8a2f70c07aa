// A user header found through -I: an AICORE inline helper that kernels call per block.
#ifndef TILE_HELPERS_HPP
#define TILE_HELPERS_HPP
#include <pto/pto-inst.hpp>

template <typename TileT>
AICORE inline void squarePlusOne(TileT &dst, TileT &src)
{
    pto::TMUL(dst, src, src);
    pto::TADDS(dst, dst, 1.0f);
}
#endif
