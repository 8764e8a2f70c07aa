// Tiles that stay single: in some iteration a value of an earlier one may be read.
// `odd` is loaded only in even steps (an `if` decided at run time) and read in every step;
// `patched` gets a TINSERT of one row block (the rest is the earlier step's); `running` is read
// before it is written (an accumulation); `tail` is loaded inside a loop of `parts` runs (maybe
// none) and read after it.
#include "common.hpp"

constexpr int PART_ROWS = 8;
using PartT = Tile<TileType::Vec, float, PART_ROWS, COLS, BLayout::RowMajor, PART_ROWS, COLS>;
using PartGm = GlobalTensor<float, Shape<1, 1, 1, PART_ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;

extern "C" __global__ AICORE void refused(__gm__ float *out, __gm__ float *kept, __gm__ float *x, int parts)
{
    BlockT odd;
    TASSIGN(odd, 0x0);  // UB 16 KiB
    BlockT patched;
    TASSIGN(patched, 0x4000);  // UB 16 KiB
    BlockT running;
    TASSIGN(running, 0x8000);  // UB 16 KiB
    BlockT tail;
    TASSIGN(tail, 0xc000);  // UB 16 KiB
    BlockT res;
    PartT part;
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: odd free at start (V -> MTE2)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // prime: res free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // prime: res free at start (MTE3 -> V)
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);  // prime: patched, running free at start (MTE3 -> V)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: tail, part free at start (V -> MTE2)
    for (int b = 0; b < STEPS; ++b) {
        BlockGm src(x + b * BLOCK);
        BlockGm dst(out + b * BLOCK);
        TASSIGN(res, 0x10000 + (b % 2) * 0x4000);  // UB 2 x 16 KiB, one copy per iteration (multi-buffered)
        TASSIGN(part, 0x18000 + (b % 2) * 0x1000);  // UB 2 x 4 KiB, one copy per iteration (multi-buffered)
        if (b % 2 == 0) {
            wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR odd: V -> MTE2 (next iteration)
            TLOAD(odd, src);
            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW odd: MTE2 -> V
        }
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)(b % 2));  // WAR res: MTE3 -> V (next iteration)
        if ((b % 2) == 0) wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW odd: MTE2 -> V
        TEXP(res, odd);
        if (((b + 1) % 2) == 0) set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // WAR odd: V -> MTE2 (next iteration)
        PartGm rows(x + b * BLOCK);
        TLOAD(part, rows);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)((b % 2) + 1));  // RAW part: MTE2 -> V
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);  // WAR patched, running: MTE3 -> V (next iteration)
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)((b % 2) + 1));  // RAW part: MTE2 -> V
        TINSERT(patched, part, 0, 0);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // RAW patched: V -> MTE3
        pipe_barrier(PIPE_V);  // RAW patched: TINSERT -> TADD on PIPE_V
        TADD(res, res, patched);
        pipe_barrier(PIPE_V);  // WAR running: TADD -> TADD on PIPE_V
        TADD(running, running, res);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);  // RAW running: V -> MTE3
        BlockGm patched_dst(kept + b * 2 * BLOCK);
        BlockGm running_dst(kept + b * 2 * BLOCK + BLOCK);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // RAW patched: V -> MTE3
        TSTORE(patched_dst, patched);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID3);  // RAW running: V -> MTE3
        TSTORE(running_dst, running);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);  // WAR patched, running: MTE3 -> V (next iteration)
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // WAR tail, part: V -> MTE2 (next iteration)
        for (int p = 0; p < parts; ++p) {
            pipe_barrier(PIPE_MTE2);  // WAW tail: TLOAD -> TLOAD on PIPE_MTE2
            TLOAD(tail, src);
        }
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID3);  // RAW tail: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID3);  // RAW tail: MTE2 -> V
        pipe_barrier(PIPE_V);  // RAW running: TADD -> TADD on PIPE_V
        TADD(res, running, tail);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // WAR tail, part: V -> MTE2 (next iteration)
        set_flag(PIPE_V, PIPE_MTE3, (event_t)((b % 2) + 4));  // RAW res: V -> MTE3
        wait_flag(PIPE_V, PIPE_MTE3, (event_t)((b % 2) + 4));  // RAW res: V -> MTE3
        TSTORE(dst, res);
        set_flag(PIPE_MTE3, PIPE_V, (event_t)(b % 2));  // WAR res: MTE3 -> V (next iteration)
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: odd (V -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // drain: res (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);  // drain: res (MTE3 -> V)
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID2);  // drain: patched, running (MTE3 -> V)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: tail, part (V -> MTE2)
}
