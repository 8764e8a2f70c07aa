// Hand-written twin of split_k.cpp: the epilogue's flags and barrier inside its guard.
// Split-K epilogue on the vector core: each output tile is the sum of SPLITS partial tiles. The
// partials stream in double buffered; the last split scales the sum and stores it, under
// `if (s == SPLITS - 1)`, so the epilogue's synchronization belongs inside that guard.
#include <pto/pto-inst.hpp>
using namespace pto;
constexpr int ROWS = 16;
constexpr int COLS = 128;
constexpr int TILES = 4;
constexpr int SPLITS = 4;
using TileT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;

extern "C" __global__ AICORE void split_k(__gm__ float *out, __gm__ float *partials)
{
    TileT part[2];
    TileT sum;
    TileT result;
    TASSIGN(part[0], 0x0);
    TASSIGN(part[1], 0x2000);
    TASSIGN(sum, 0x4000);
    TASSIGN(result, 0x6000);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    for (int t = 0; t < TILES; ++t) {
        for (int s = 0; s < SPLITS; ++s) {
            GmT g(partials + (s * TILES + t) * ROWS * COLS);
            wait_flag(PIPE_V, PIPE_MTE2, (event_t)(s % 2));
            TLOAD(part[s % 2], g);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)(s % 2));
            wait_flag(PIPE_MTE2, PIPE_V, (event_t)(s % 2));
            pipe_barrier(PIPE_V);  // the running sum, and the previous tile's scaling of it
            if (s == 0) {
                TADDS(sum, part[s % 2], 0.0f);
            } else {
                TADD(sum, sum, part[s % 2]);
            }
            set_flag(PIPE_V, PIPE_MTE2, (event_t)(s % 2));
            if (s == SPLITS - 1) {
                wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
                pipe_barrier(PIPE_V);
                TMULS(result, sum, 0.25f);
                set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
                wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
                GmT o(out + t * ROWS * COLS);
                TSTORE(o, result);
                set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
            }
        }
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
}
