// lanes_then_update.cpp with one ping-pong index stepped over the slices and the update (the form
// pto-isa's hand-written flash attention has): every declaration takes the next of the two copies
// of one 8 KiB region, so the update takes the copy the last slice did not use and the next
// step's first slice the other one. One flag per copy frees it for its next load, whichever tile
// used it last: each user waits for it before its load and sets it on MTE3 after its last read
// (the update reads on V: a V -> MTE3 flag puts its set after that read, and after this use's
// wait of the same id, so no signal of the id can be lost).
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
    TASSIGN(acc, 0x2000);
    TileT upd;
    MultiBuffered<2> mb;
    uint32_t regionCopy = 1;  // the copy of the shared region the last declaration took
    TEXPANDS(acc, 0.0f);
    pipe_barrier(PIPE_V);  // WAW acc: TEXPANDS -> TADD on PIPE_V (a step of one slice has no other order)
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // prime: region copy 0 free (MTE3 -> MTE2)
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // prime: region copy 1 free (MTE3 -> MTE2)
    for (int blk = 0; blk < blocks; ++blk) {
        mb.loop<Range<LANES>>([&](auto ctx) {
            regionCopy = (regionCopy + 1) % 2;
            TileT slice;
            TASSIGN(slice, regionCopy * 0x1000);
            GmT gS(s + (blk * LANES + ctx.iter) * 1024);
            GmT gP(parts + (blk * LANES + ctx.iter) * 1024);
            wait_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(regionCopy));  // WAR region copy: MTE3 -> MTE2
            TLOAD(slice, gS);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)(ctx.iter % 2));  // RAW/WAW slice: MTE2 -> V
            wait_flag(PIPE_MTE2, PIPE_V, (event_t)(ctx.iter % 2));  // RAW/WAW slice: MTE2 -> V
            TMULS(slice, slice, 2.0f);
            set_flag(PIPE_V, PIPE_MTE3, (event_t)(ctx.iter % 2));  // RAW slice: V -> MTE3
            wait_flag(PIPE_V, PIPE_MTE3, (event_t)(ctx.iter % 2));  // RAW slice: V -> MTE3
            TSTORE(gP, slice);
            set_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(regionCopy));  // WAR region copy: MTE3 -> MTE2
        });
        GmT gU(u + blk * 1024);
        regionCopy = (regionCopy + 1) % 2;
        TASSIGN(upd, regionCopy * 0x1000);
        wait_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(regionCopy));  // WAR region copy: MTE3 -> MTE2
        TLOAD(upd, gU);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);  // RAW upd: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);  // RAW upd: MTE2 -> V
        TADD(acc, acc, upd);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // WAR region copy: V -> MTE3 (its release goes on MTE3)
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // WAR region copy: V -> MTE3 (its release goes on MTE3)
        set_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(regionCopy));  // WAR region copy: MTE3 -> MTE2
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);  // RAW acc: V -> MTE3
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // drain: region copy 0 (MTE3 -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // drain: region copy 1 (MTE3 -> MTE2)
    GmT gO(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);  // RAW acc: V -> MTE3
    TSTORE(gO, acc);
}
