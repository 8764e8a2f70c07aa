// A helper template of the user's: FRESH loads its input first, otherwise the caller has it.
#pragma once
#include <pto/pto-inst.hpp>

template <bool FRESH, typename TileT, typename GmT>
AICORE inline void scale_step(TileT &t, TileT &o, GmT &src, GmT &dst)
{
    if constexpr (FRESH) {
        TLOAD(t, src);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t: MTE2 -> V
    }
    if constexpr (FRESH == true) {
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t: MTE2 -> V
    }  // per instantiation of scale_step
    TADDS(o, t, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    TSTORE(dst, o);
}
