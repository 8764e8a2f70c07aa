// While loops in a manual vector kernel, in the shape of a consumer that polls a ready counter
// in GM another rank raises: `drain` runs until it has taken `want` blocks, taking a block only
// when the counter says it is there; `spin` waits on a flag and does pipe work while it waits.
// The first loop's trip count follows from the values given; the second one's iterations
// change nothing the kernel computes while the flag stays low; the third one ends by a break.
// RACY selects a version whose store is not ordered after the add.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int kRows = 16;
constexpr int kCols = 64;
using Block = Tile<TileType::Vec, float, kRows, kCols, BLayout::RowMajor, kRows, kCols>;
using BlockGm = GlobalTensor<float, Shape<1, 1, 1, kRows, kCols>, Stride<1, 1, 1, kCols, 1>>;

extern "C" __global__ AICORE void while_loops(__gm__ float *in, __gm__ float *out, __gm__ int32_t *ready,
                                              __gm__ int32_t *flag, int want)
{
    Block x, y;
    TASSIGN(x, 0x0);
    TASSIGN(y, 0x4000);
    int taken = 0;
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    while (taken < want) {
        int have = *ready;
        if (have > taken) {
            BlockGm src(in + taken * kRows * kCols), dst(out + taken * kRows * kCols);
            wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
            TLOAD(x, src);
            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            TADDS(y, x, 1.0f);
#ifndef RACY
            set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
#endif
            TSTORE(dst, y);
            set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
            taken++;
        }
    }
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    while (*flag == 0) {
        pipe_barrier(PIPE_ALL);
    }
    int spins = 0;
    while (true) {
        spins++;
        if (spins >= want) {
            break;
        }
        pipe_barrier(PIPE_V);
    }
}
