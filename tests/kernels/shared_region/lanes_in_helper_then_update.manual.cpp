// lanes_then_update.cpp with the lane's work in a helper the lane body calls with its lane
// index, loading the slice through a view of it (as pto-isa's a2a3 AUTO flash attention's
// compute_p pops its FIFO strip): the helper has no name for the counter over the slice's copies
// and the update tile, only for the lane (`row`). UB is limited (`--capacity UB=12K`) so that the
// memory plan lays the update tile over one of the slice's copies.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

#ifndef LANES
#define LANES 4  // slices per step (-D LANES=N)
#endif

using namespace pto;
using namespace pto_auto;

using TileT = Tile<TileType::Vec, float, 16, 64>;
using HalfT = Tile<TileType::Vec, float, 8, 128>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
using GmHalfT = GlobalTensor<float, Shape<1, 1, 1, 8, 128>, Stride<1, 1, 1, 128, 1>>;

template <typename T>
AICORE inline void scale_slice(T &slice, __gm__ float *s, __gm__ float *parts, int blk, int row)
{
    HalfT view;
    TRESHAPE(view, slice);
    GmHalfT gS(s + (blk * LANES + row) * 1024);
    TLOAD(view, gS);
    set_flag(PIPE_MTE2, PIPE_V, (event_t)(row % 2));  // RAW/WAW slice: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, (event_t)(row % 2));  // RAW/WAW slice: MTE2 -> V
    TMULS(slice, slice, 2.0f);
    set_flag(PIPE_V, PIPE_MTE3, (event_t)(row % 2));  // RAW slice: V -> MTE3
    GmT gP(parts + (blk * LANES + row) * 1024);
    wait_flag(PIPE_V, PIPE_MTE3, (event_t)(row % 2));  // RAW slice: V -> MTE3
    TSTORE(gP, slice);
}

extern "C" __global__ AICORE void lanes_in_helper_then_update(__gm__ float *out, __gm__ float *parts,
                                                              __gm__ float *s, __gm__ float *u, int blocks)
{
    TileT acc;
    TASSIGN(acc, 0x2000);  // UB 4 KiB
    TileT upd;
    MultiBuffered<2> mb;
    TEXPANDS(acc, 0.0f);
    uint32_t sliceCopy = 1;  // copy of slice and upd the last declaration took: one counter over both
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // prime: view free at start (MTE3 -> MTE2)
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // prime: view free at start (MTE3 -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: view free at start (V -> MTE2)
    for (int blk = 0; blk < blocks; ++blk) {
        mb.loop<Range<LANES>>([&](auto ctx) {
            sliceCopy = (sliceCopy + 1) % 2;  // each lane takes the next copy
            TileT slice;
            TASSIGN(slice, sliceCopy * 0x1000);  // UB 2 x 4 KiB, one per lane
            wait_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(sliceCopy));  // WAR view: MTE3 -> MTE2 (next iteration)
            if (ctx.iter == 1) wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // WAR view: V -> MTE2 (next iteration)
            scale_slice(slice, s, parts, blk, ctx.iter);
            set_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(sliceCopy));  // WAR view: MTE3 -> MTE2 (next iteration)
            if (ctx.iter == 2) set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // WAR upd: MTE3 -> MTE2
        });
        GmT gU(u + blk * 1024);
        sliceCopy = (sliceCopy + 1) % 2;  // upd takes the copy the last lane did not use
        TASSIGN(upd, sliceCopy * 0x1000);  // UB 2 x 4 KiB, the copy its counter names (multi-buffered)
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // WAR upd: MTE3 -> MTE2
        TLOAD(upd, gU);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)(sliceCopy + 2));  // RAW upd: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(sliceCopy + 2));  // RAW upd: MTE2 -> V
        TADD(acc, acc, upd);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // WAR view: V -> MTE2 (next iteration)
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW acc: V -> MTE3
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // drain: view (MTE3 -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // drain: view (MTE3 -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: view (V -> MTE2)
    GmT gO(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW acc: V -> MTE3
    TSTORE(gO, acc);
}
