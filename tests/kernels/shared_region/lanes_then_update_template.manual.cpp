// lanes_then_update.cpp as a kernel template of its lane count, instantiated for 2 lanes and 1,
// the two rewritten together (one text): both take one counter over the lanes and the update, and
// their other lines before the loop differ, so those are split into `if constexpr` branches by
// lane count while the counter's declaration, which lines in both branches and in the loop name,
// is written once, outside them. UB is limited as there (`--capacity UB=12K`).
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"


using namespace pto;
using namespace pto_auto;

using TileT = Tile<TileType::Vec, float, 16, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

template <int LANES>
__global__ AICORE void lanes_then_update_t(__gm__ float *out, __gm__ float *parts, __gm__ float *s, __gm__ float *u,
                                           int blocks)
{
    TileT acc;
    TASSIGN(acc, 0x2000);  // UB 4 KiB
    TileT upd;
    MultiBuffered<2> mb;
    TEXPANDS(acc, 0.0f);
    uint32_t sliceCopy = 1;  // copy of slice and upd the last declaration took: one counter over both
    if constexpr (LANES == 2) {
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: slice free at start (V -> MTE2)
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // prime: slice free at start (MTE3 -> MTE2)
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // prime: slice free at start (MTE3 -> MTE2)
    } else if constexpr (LANES == 1) {
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // prime: slice free at start (MTE3 -> MTE2)
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // prime: slice free at start (MTE3 -> MTE2)
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: upd free at start (V -> MTE2)
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // prime: upd free at start (V -> MTE2)
    }  // per instantiation of lanes_then_update_t
    for (int blk = 0; blk < blocks; ++blk) {
        mb.loop<Range<LANES>>([&](auto ctx) {
            sliceCopy = (sliceCopy + 1) % 2;  // each lane takes the next copy
            TileT slice;
            TASSIGN(slice, sliceCopy * 0x1000);  // UB 2 x 4 KiB, one per lane
            GmT gS(s + (blk * LANES + ctx.iter) * 1024);
            GmT gP(parts + (blk * LANES + ctx.iter) * 1024);
            if constexpr (LANES == 2) {
                if (ctx.iter == 1) wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // WAR slice: V -> MTE2 (next iteration)
                wait_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(sliceCopy));  // WAR slice: MTE3 -> MTE2 (next iteration)
            } else if constexpr (LANES == 1) {
                wait_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(sliceCopy));  // WAR slice: MTE3 -> MTE2 (next iteration)
            }  // per instantiation of lanes_then_update_t
            TLOAD(slice, gS);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)(sliceCopy));  // RAW/WAW slice: MTE2 -> V
            wait_flag(PIPE_MTE2, PIPE_V, (event_t)(sliceCopy));  // RAW/WAW slice: MTE2 -> V
            TMULS(slice, slice, 2.0f);
            set_flag(PIPE_V, PIPE_MTE3, (event_t)(sliceCopy));  // RAW slice: V -> MTE3
            wait_flag(PIPE_V, PIPE_MTE3, (event_t)(sliceCopy));  // RAW slice: V -> MTE3
            TSTORE(gP, slice);
            if constexpr (LANES == 2) {
                set_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(sliceCopy));  // WAR slice: MTE3 -> MTE2 (next iteration)
                if (ctx.iter == 0) set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // WAR upd: MTE3 -> MTE2
            } else if constexpr (LANES == 1) {
                set_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(sliceCopy));  // WAR slice: MTE3 -> MTE2 (next iteration)
            }  // per instantiation of lanes_then_update_t
        });
        GmT gU(u + blk * 1024);
        if constexpr (LANES == 2) {
            sliceCopy = (sliceCopy + 1) % 2;  // upd takes the copy the last lane did not use
            TASSIGN(upd, sliceCopy * 0x1000);  // UB 2 x 4 KiB, the copy its counter names (multi-buffered)
            wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);  // WAR upd: MTE3 -> MTE2
        } else if constexpr (LANES == 1) {
            sliceCopy = (sliceCopy + 1) % 2;  // upd takes the copy the last lane did not use
            TASSIGN(upd, sliceCopy * 0x1000);  // UB 2 x 4 KiB, the copy its counter names (multi-buffered)
            wait_flag(PIPE_V, PIPE_MTE2, (event_t)(sliceCopy + 2));  // WAR upd: V -> MTE2 (next iteration)
        }  // per instantiation of lanes_then_update_t
        TLOAD(upd, gU);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)(sliceCopy));  // RAW upd: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(sliceCopy));  // RAW upd: MTE2 -> V
        TADD(acc, acc, upd);
        if constexpr (LANES == 2) {
            set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // WAR slice: V -> MTE2 (next iteration)
        } else if constexpr (LANES == 1) {
            set_flag(PIPE_V, PIPE_MTE2, (event_t)(sliceCopy + 2));  // WAR upd: V -> MTE2 (next iteration)
        }  // per instantiation of lanes_then_update_t
    }
    if constexpr (LANES == 2) {
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);  // RAW acc: V -> MTE3
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: slice (V -> MTE2)
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // drain: slice (MTE3 -> MTE2)
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // drain: slice (MTE3 -> MTE2)
    } else if constexpr (LANES == 1) {
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID4);  // RAW acc: V -> MTE3
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // drain: slice (MTE3 -> MTE2)
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // drain: slice (MTE3 -> MTE2)
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: upd (V -> MTE2)
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // drain: upd (V -> MTE2)
    }  // per instantiation of lanes_then_update_t
    GmT gO(out);
    if constexpr (LANES == 2) {
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);  // RAW acc: V -> MTE3
    } else if constexpr (LANES == 1) {
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID4);  // RAW acc: V -> MTE3
    }  // per instantiation of lanes_then_update_t
    TSTORE(gO, acc);
}

template __global__ AICORE void lanes_then_update_t<2>(__gm__ float *, __gm__ float *, __gm__ float *, __gm__ float *,
                                                       int);
template __global__ AICORE void lanes_then_update_t<1>(__gm__ float *, __gm__ float *, __gm__ float *, __gm__ float *,
                                                       int);
