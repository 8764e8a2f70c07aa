// Helpers written with bisheng's bracketed execution space qualifier, in the three places it
// appears: before a function, after a template head, and as the body of a macro.
#pragma once
#include <pto/pto-inst.hpp>

#define DEVICE_FN [aicore]

[aicore] inline void centreRows(pto::Tile<pto::TileType::Vec, float, 16, 64, pto::BLayout::RowMajor, 16, 64> &dst,
                                pto::Tile<pto::TileType::Vec, float, 16, 64, pto::BLayout::RowMajor, 16, 64> &src,
                                pto::Tile<pto::TileType::Vec, float, 16, 1, pto::BLayout::ColMajor, 16, 1> &mean)
{
    // The implementation entry point, as some kernels call it.
    TROWEXPANDSUB_IMPL(dst, src, mean);
}

template <typename T>
[aicore] inline T twice(T v)
{
    return v + v;
}

DEVICE_FN inline int signalWord(int flag)
{
    // A subscript with a variable named like the qualifier is left alone.
    int aicore = 0;
    int words[2] = {flag, flag};
    return words[aicore] + (int)pto::getFFTSMsg(0x2, 3);
}
