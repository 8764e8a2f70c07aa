// Hand-written twin of two_readers.cpp: separate releases for x and y.
// Two double-buffered inputs whose last readers are far apart: x is read once at the start of
// the step, y only after a chain of vector work. Each input's slot is released after its own
// last reader, so the next load of x does not wait for the reader of y.
#include <pto/pto-inst.hpp>
using namespace pto;
constexpr int ROWS = 32;
constexpr int COLS = 128;
constexpr int STEPS = 16;
using TileT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;

extern "C" __global__ AICORE void two_readers(__gm__ float *out, __gm__ float *xs, __gm__ float *ys)
{
    TileT x[2];
    TileT y[2];
    TileT t[2];
    TASSIGN(x[0], 0x0);
    TASSIGN(x[1], 0x4000);
    TASSIGN(y[0], 0x8000);
    TASSIGN(y[1], 0xC000);
    TASSIGN(t[0], 0x10000);
    TASSIGN(t[1], 0x14000);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  // x slots free
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);  // y slots free
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // t slots free
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    for (int i = 0; i < STEPS; ++i) {
        const int s = i % 2;
        GmT gx(xs + i * ROWS * COLS);
        GmT gy(ys + i * ROWS * COLS);
        GmT go(out + i * ROWS * COLS);
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)s);
        TLOAD(x[s], gx);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)s);
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)(s + 2));
        TLOAD(y[s], gy);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)(s + 2));
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)s);
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)s);
        TMULS(t[s], x[s], 0.5f);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)s);  // last read of x[s]
        pipe_barrier(PIPE_V);
        TEXP(t[s], t[s]);
        pipe_barrier(PIPE_V);
        TMULS(t[s], t[s], 2.0f);
        pipe_barrier(PIPE_V);
        TEXP(t[s], t[s]);
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)(s + 2));
        pipe_barrier(PIPE_V);
        TADD(t[s], t[s], y[s]);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)(s + 2));  // last read of y[s]
        set_flag(PIPE_V, PIPE_MTE3, (event_t)(s + 4));
        wait_flag(PIPE_V, PIPE_MTE3, (event_t)(s + 4));
        TSTORE(go, t[s]);
        set_flag(PIPE_MTE3, PIPE_V, (event_t)s);
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID3);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
}
