// Doubles the running sum and adds the next block to it.
#pragma once
#include <pto/pto-inst.hpp>

template <typename TileT>
AICORE inline void foldBlock(TileT &sum, TileT &next)
{
    pto::TMULS(sum, sum, 2.0f);
    pipe_barrier(PIPE_V);  // RAW sum: TMULS -> TADD on PIPE_V
    pto::TADD(sum, sum, next);
}
