// The shape of pto-isa's a2a3 AUTO flash attention's vector main loop, small: every step of a
// loop with a run-time trip count runs a MultiBuffered lane loop over a slice tile (two copies,
// one per lane), then loads a single update tile declared before the loop. UB is limited
// (`--capacity UB=12K`) so that the memory plan lays the update tile over one of the slice's
// copies: the next step's first lane loads into bytes this step's update reads.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

#ifndef LANES
#define LANES 4  // slices per step (-D LANES=N)
#endif

using namespace pto;
using namespace pto_auto;

using TileT = Tile<TileType::Vec, float, 16, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

extern "C" __global__ AICORE void lanes_then_update(__gm__ float *out, __gm__ float *parts, __gm__ float *s,
                                                    __gm__ float *u, int blocks)
{
    TileT acc;
    TASSIGN(acc, 0x2000);  // UB 4 KiB
    TileT upd;
    MultiBuffered<2> mb;
    TEXPANDS(acc, 0.0f);
    uint32_t sliceCopy = 1;  // copy of slice and upd the last declaration took: one counter over both
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // prime: slice free at start (MTE3 -> MTE2)
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // prime: slice free at start (MTE3 -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: slice free at start (V -> MTE2)
    for (int blk = 0; blk < blocks; ++blk) {
        mb.loop<Range<LANES>>([&](auto ctx) {
            sliceCopy = (sliceCopy + 1) % 2;  // each lane takes the next copy
            TileT slice;
            TASSIGN(slice, sliceCopy * 0x1000);  // UB 2 x 4 KiB, one per lane
            GmT gS(s + (blk * LANES + ctx.iter) * 1024);
            GmT gP(parts + (blk * LANES + ctx.iter) * 1024);
            wait_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(sliceCopy));  // WAR slice: MTE3 -> MTE2 (next iteration)
            if (ctx.iter == 1) wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // WAR slice: V -> MTE2 (next iteration)
            TLOAD(slice, gS);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)(sliceCopy));  // RAW/WAW slice: MTE2 -> V
            wait_flag(PIPE_MTE2, PIPE_V, (event_t)(sliceCopy));  // RAW/WAW slice: MTE2 -> V
            TMULS(slice, slice, 2.0f);
            set_flag(PIPE_V, PIPE_MTE3, (event_t)(sliceCopy));  // RAW slice: V -> MTE3
            wait_flag(PIPE_V, PIPE_MTE3, (event_t)(sliceCopy));  // RAW slice: V -> MTE3
            TSTORE(gP, slice);
            set_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(sliceCopy));  // WAR slice: MTE3 -> MTE2 (next iteration)
            if (ctx.iter == 2) set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // WAR upd: MTE3 -> MTE2
        });
        GmT gU(u + blk * 1024);
        sliceCopy = (sliceCopy + 1) % 2;  // upd takes the copy the last lane did not use
        TASSIGN(upd, sliceCopy * 0x1000);  // UB 2 x 4 KiB, the copy its counter names (multi-buffered)
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // WAR upd: MTE3 -> MTE2
        TLOAD(upd, gU);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)(sliceCopy));  // RAW upd: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(sliceCopy));  // RAW upd: MTE2 -> V
        TADD(acc, acc, upd);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // WAR slice: V -> MTE2 (next iteration)
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);  // RAW acc: V -> MTE3
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // drain: slice (MTE3 -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // drain: slice (MTE3 -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: slice (V -> MTE2)
    GmT gO(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);  // RAW acc: V -> MTE3
    TSTORE(gO, acc);
}
