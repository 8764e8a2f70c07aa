// A helper template on the MultiBuffered phase, called with Phase::Main in a plain loop and
// again with its context's phase in a MultiBuffered loop that follows, both in a loop over
// heads. The MultiBuffered loop is lowered once per phase (its main phase and its epilogue are
// loops of their own), so the helper's Phase::Main instantiation has copies in the plain loop
// and in the main-phase loop, and its Phase::Epilogue instantiation one in the epilogue loop.
// Each copy needs its own V -> MTE2 flag back to the next load of its tile; the helper has one
// text, so each flag is written in every copy, on one id, primed and drained around the loop
// over heads.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

using RowsT = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 8, 64>;
using RowsGm = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
constexpr int BLOCK = 8 * 64;

// Folds one block of rows into the running sum; the last phase also writes the sum out.
template <Phase P>
AICORE inline void fold_block(RowsT &sum, RowsT &part, __gm__ float *src, __gm__ float *dst)
{
    RowsGm in(src);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // part consumed: V -> MTE2 (flag reuse)
    TLOAD(part, in);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW part: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW part: MTE2 -> V
    TMULS(part, part, 0.5f);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // part consumed: V -> MTE2 (flag reuse)
    if constexpr (P == Phase::Epilogue) {
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR sum: MTE3 -> V (next iteration)
        pipe_barrier(PIPE_V);  // RAW part: TMULS -> TADD on PIPE_V
    } else if constexpr (P == Phase::Main) {
        pipe_barrier(PIPE_V);  // RAW part: TMULS -> TADD on PIPE_V
    }  // per instantiation of fold_block
    TADD(sum, sum, part);
    if constexpr (P == Phase::Epilogue) {
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW sum: V -> MTE3
    }  // per instantiation of fold_block
    if constexpr (P == Phase::Epilogue) {
        RowsGm out(dst);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW sum: V -> MTE3
        TSTORE(out, sum);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // WAR sum: MTE3 -> V (next iteration)
    }
}

extern "C" __global__ AICORE void main_phase_in_and_before_loop(__gm__ float *out, __gm__ float *in)
{
    RowsT sum;
    TASSIGN(sum, 0x0);  // UB 2 KiB
    RowsT first;
    TEXPANDS(sum, 0.0f);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: sum free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: sum free at start (MTE3 -> V)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: part free at start (V -> MTE2)
    for (int h = 0; h < 2; ++h) {
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // WAR sum: MTE3 -> V (next iteration)
        for (int b = 0; b < 3; ++b) {
            TASSIGN(first, 0x800 + (b % 2) * 0x800);  // UB 2 x 2 KiB, one copy per iteration (multi-buffered)
            fold_block<Phase::Main>(sum, first, in + (h * 8 + b) * BLOCK, out);
        }
        MultiBuffered<2> mb;
        mb.loop<Range<5>, 0, 2>([&](auto ctx) {
            RowsT part;
            TASSIGN(part, 0x1800 + (((h * 3) + ctx.iter) % 2) * 0x800);  // UB 2 x 2 KiB, one per lane
            if (ctx.iter == 3) wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // WAR part: V -> MTE2 (before the Phase::Epilogue iterations)
            fold_block<ctx.phase>(sum, part, in + (h * 8 + 3 + ctx.iter) * BLOCK, out + (h * 5 + ctx.iter) * BLOCK);
            if (ctx.iter == 2) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // WAR part: V -> MTE2 (after the Phase::Main iterations)
        });
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // WAR sum: MTE3 -> V (next iteration)
    }
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: sum (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: sum (MTE3 -> V)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: part (V -> MTE2)
}
