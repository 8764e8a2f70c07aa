// Two AUTO kernels sharing one helper of fold.hpp. In fold_many the running sum stays in UB and
// only the next block is loaded before each fold, so the fold's add is what waits for the load;
// in fold_once the sum is loaded too, and the fold waits at its first instruction.
#include <pto/pto-inst.hpp>
#include "fold.hpp"

using namespace pto;

constexpr int ROWS = 16;
constexpr int COLS = 64;
using Gm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
using Block = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;

extern "C" __global__ AICORE void fold_many(__gm__ float *out, __gm__ float *in, int blocks)
{
    Block sum;
    TASSIGN(sum, 0x0);  // UB 4 KiB
    Block next;
    Gm first(in);
    TLOAD(sum, first);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID2);  // RAW sum: MTE2 -> MTE3
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // prime: next free at start (V -> MTE2)
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // prime: next free at start (V -> MTE2)
    for (int b = 1; b < blocks; ++b) {
        Gm src(in + b * ROWS * COLS);
        TASSIGN(next, 0x1000 + ((b - 1) % 2) * 0x1000);  // UB 2 x 4 KiB, one copy per iteration (multi-buffered)
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)((b - 1) % 2));  // WAR next: V -> MTE2 (next iteration)
        TLOAD(next, src);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)((b - 1) % 2));  // RAW/WAW sum, next: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)((b - 1) % 2));  // RAW/WAW sum, next: MTE2 -> V
        pipe_barrier(PIPE_V);  // RAW sum: TADD -> TMULS on PIPE_V
        foldBlock(sum, next);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)((b - 1) % 2));  // WAR next: V -> MTE2 (next iteration)
    }
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // RAW sum: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // drain: next (V -> MTE2)
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);  // drain: next (V -> MTE2)
    Gm dst(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);  // RAW sum: V -> MTE3
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID2);  // RAW sum: MTE2 -> MTE3
    TSTORE(dst, sum);
}

extern "C" __global__ AICORE void fold_once(__gm__ float *out, __gm__ float *a, __gm__ float *b)
{
    Block sum;
    TASSIGN(sum, 0x0);  // UB 4 KiB
    Block next;
    TASSIGN(next, 0x1000);  // UB 4 KiB
    Gm srcA(a);
    Gm srcB(b);
    TLOAD(sum, srcA);
    TLOAD(next, srcB);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW sum, next: MTE2 -> V
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW sum, next: MTE2 -> V
    foldBlock(sum, next);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW sum: V -> MTE3
    Gm dst(out);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW sum: V -> MTE3
    TSTORE(dst, sum);
}
