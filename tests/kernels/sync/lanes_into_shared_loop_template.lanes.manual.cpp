// A lane loop over a double-buffered tile (one copy per lane), then a loop of run-time trips
// whose body runs another lane loop over a tile of the same shape and then a single tile placed
// over lane 0's copy (UB is tight: three tiles live throughout). The later loop frees its lanes
// with one flag per iteration of its outer loop (the single tile shares lane 0's bytes), so its
// first loads take no lane flag of their own: each waits for its lane's last reader in the loop
// before, and only for it, not for the other lane's reader after it (its rewrite without a
// counter over the lanes and the single tile: .lanes.manual.cpp). A template kernel with two
// instantiations rewritten together: by default both take that counter, declared once before
// the later loop (.manual.cpp).
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;
using TileT = Tile<TileType::Vec, float, 64, 128>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 64, 128>, Stride<1, 1, 1, 128, 1>>;

constexpr int kSteps = 4;
constexpr int kLanes = 2;

template <int kUpdateRow>
__global__ AICORE void lanes_into_shared_loop_t(__gm__ float *out, __gm__ float *in, __gm__ float *upd, int n)
{
    MultiBuffered<2> mb;
    TileT acc;
    TASSIGN(acc, 0x10000);  // UB 32 KiB
    TileT bias;
    TASSIGN(bias, 0x18000);  // UB 32 KiB
    TileT scale;
    TASSIGN(scale, 0x20000);  // UB 32 KiB
    GmT accIn(out);
    GmT biasIn(upd);
    GmT scaleIn(upd + 8192);
    TLOAD(acc, accIn);
    TLOAD(bias, biasIn);
    TLOAD(scale, scaleIn);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: part free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: part free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // prime: part free at start (V -> MTE2)
    mb.loop<Range<kSteps>>([&](auto ctx) {
        TileT part;
        TASSIGN(part, ctx.bufferId * 0x8000);  // UB 2 x 32 KiB, one per lane
        GmT src(in + ctx.iter * 8192);
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)(ctx.iter % 2));  // WAR/WAW part: V -> MTE2 (next iteration)
        TLOAD(part, src);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)(ctx.iter % 2));  // RAW/WAW part, scale, acc: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(ctx.iter % 2));  // RAW/WAW part, scale, acc: MTE2 -> V
        TMUL(part, part, scale);
        pipe_barrier(PIPE_V);  // RAW acc: TADD -> TADD on PIPE_V
        TADD(acc, acc, part);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)(ctx.iter % 2));  // WAR/WAW part: V -> MTE2 (next iteration)
    });
    for (int t = 0; t < n; ++t) {
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // WAR/WAW part: V -> MTE2 (next iteration)
        mb.loop<Range<kLanes>>([&](auto ctx) {
            TileT part;
            TASSIGN(part, ctx.bufferId * 0x8000);  // UB 2 x 32 KiB, one per lane
            GmT src(in + (kSteps + t * kLanes + ctx.iter) * 8192);
            if ((t == 0) && (ctx.iter < 2)) wait_flag(PIPE_V, PIPE_MTE2, (event_t)(ctx.iter % 2));  // WAR/WAW part: V -> MTE2 (the lane's last reader in the loop before)
            TLOAD(part, src);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)(ctx.iter % 2));  // RAW/WAW part: MTE2 -> V
            wait_flag(PIPE_MTE2, PIPE_V, (event_t)(ctx.iter % 2));  // RAW/WAW part: MTE2 -> V
            TADD(part, part, bias);
            pipe_barrier(PIPE_V);  // RAW acc: TADD -> TADD on PIPE_V
            TADD(acc, acc, part);
            if (ctx.iter == 0) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // WAR/WAW update: V -> MTE2
            if ((t == 0) && (ctx.iter < 2)) set_flag(PIPE_V, PIPE_MTE2, (event_t)(ctx.iter % 2));  // WAR/WAW part: V -> MTE2 (the lane's last reader in the loop before)
        });
        TileT update;
        TASSIGN(update, 0x0);  // UB 32 KiB
        GmT u(upd + (t + kUpdateRow) * 8192);
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);  // WAR/WAW update: V -> MTE2
        TLOAD(update, u);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW update: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW update: MTE2 -> V
        pipe_barrier(PIPE_V);  // RAW acc: TADD -> TADD on PIPE_V
        TADD(acc, acc, update);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // WAR/WAW part: V -> MTE2 (next iteration)
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID4);  // RAW acc: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: part (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: part (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // drain: part (V -> MTE2)
    GmT o(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID4);  // RAW acc: V -> MTE3
    TSTORE(o, acc);
}

template __global__ AICORE void lanes_into_shared_loop_t<2>(__gm__ float *, __gm__ float *, __gm__ float *, int);
template __global__ AICORE void lanes_into_shared_loop_t<3>(__gm__ float *, __gm__ float *, __gm__ float *, int);
