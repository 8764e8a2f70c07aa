// Doubles the running sum and adds the next block to it.
#pragma once
#include <pto/pto-inst.hpp>

template <typename TileT>
AICORE inline void foldBlock(TileT &sum, TileT &next)
{
    pto::TMULS(sum, sum, 2.0f);
    pto::TADD(sum, sum, next);
}
