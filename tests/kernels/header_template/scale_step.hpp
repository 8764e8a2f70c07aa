// A helper template of the user's: FRESH loads its input first, otherwise the caller has it.
#pragma once
#include <pto/pto-inst.hpp>

template <bool FRESH, typename TileT, typename GmT>
AICORE inline void scale_step(TileT &t, TileT &o, GmT &src, GmT &dst)
{
    if constexpr (FRESH) {
        TLOAD(t, src);
    }
    TADDS(o, t, 1.0f);
    TSTORE(dst, o);
}
