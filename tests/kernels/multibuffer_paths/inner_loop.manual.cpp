// The tile is first touched inside an inner loop that runs HALVES times (a constant, at least
// once), each run loading it whole; after the inner loop the body reads the last half again.
// Every iteration of the outer loop therefore writes the tile before reading it.
#include "common.hpp"

constexpr int HALF_ROWS = ROWS / 2;
constexpr int HALVES = 2;
using HalfT = Tile<TileType::Vec, float, HALF_ROWS, COLS, BLayout::RowMajor, HALF_ROWS, COLS>;
using HalfGm = GlobalTensor<float, Shape<1, 1, 1, HALF_ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;

extern "C" __global__ AICORE void inner_loop(__gm__ float *out, __gm__ float *last, __gm__ float *x)
{
    HalfT t;
    HalfT r;
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // prime: t free at start (MTE3 -> MTE2)
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // prime: t free at start (MTE3 -> MTE2)
    for (int b = 0; b < STEPS; ++b) {
        TASSIGN(t, (b % 2) * 0x2000);  // UB 2 x 8 KiB, one copy per iteration (multi-buffered)
        TASSIGN(r, 0x4000 + (b % 2) * 0x2000);  // UB 2 x 8 KiB, one copy per iteration (multi-buffered)
        for (int h = 0; h < HALVES; ++h) {
            HalfGm src(x + b * BLOCK + h * HALF_ROWS * COLS);
            HalfGm dst(out + b * BLOCK + h * HALF_ROWS * COLS);
            wait_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(b % 2));  // WAR t: MTE3 -> MTE2 (next iteration)
            TLOAD(t, src);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)(b % 2));  // RAW/WAW t: MTE2 -> V
            wait_flag(PIPE_MTE2, PIPE_V, (event_t)(b % 2));  // RAW/WAW t: MTE2 -> V
            TEXP(t, t);
            set_flag(PIPE_V, PIPE_MTE3, (event_t)(b % 2));  // RAW t: V -> MTE3
            wait_flag(PIPE_V, PIPE_MTE3, (event_t)(b % 2));  // RAW t: V -> MTE3
            TSTORE(dst, t);
            set_flag(PIPE_MTE3, PIPE_MTE2, (event_t)(b % 2));  // WAR t: MTE3 -> MTE2 (next iteration)
        }
        pipe_barrier(PIPE_V);  // RAW t: TEXP -> TMULS on PIPE_V
        TMULS(r, t, 2.0f);
        set_flag(PIPE_V, PIPE_MTE3, (event_t)((b % 2) + 2));  // RAW r: V -> MTE3
        HalfGm twice(last + b * HALF_ROWS * COLS);
        wait_flag(PIPE_V, PIPE_MTE3, (event_t)((b % 2) + 2));  // RAW r: V -> MTE3
        TSTORE(twice, r);
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // drain: t (MTE3 -> MTE2)
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID1);  // drain: t (MTE3 -> MTE2)
}
