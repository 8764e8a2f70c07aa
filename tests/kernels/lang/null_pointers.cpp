// GM pointers declared null and set later, in the shapes pto-isa's communication kernels use:
// `pending` points at the row the previous iteration computed, stored one iteration late; the
// pointer is null until the first iteration sets it and is used only once it is set. `stamp`
// points at this block's slot of an optional profile buffer, set only when the buffer is given
// and tested against nullptr before the scalar unit writes it. RACY reads the last stored row
// back without waiting for its store: a race through `pending`, found only if the pointer is
// known to point into `out`.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int kCols = 128;
using Row = Tile<TileType::Vec, float, 1, kCols, BLayout::RowMajor, 1, kCols>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, kCols>, Stride<1, 1, 1, kCols, 1>>;

extern "C" __global__ AICORE void null_pointers(__gm__ float *in, __gm__ float *out, __gm__ uint64_t *profile,
                                               int rows)
{
    Row x, y;
    TASSIGN(x, 0x0);
    TASSIGN(y, 0x1000);
    __gm__ uint64_t *stamp = nullptr;
    if (profile != nullptr) {
        stamp = profile + get_block_idx() * 4;
    }
    __gm__ float *pending = nullptr;
    bool havePending = false;
    for (int r = 0; r < rows; ++r) {
        if (havePending) {
            RowGm dst(pending);
            set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            TSTORE(dst, y);
            set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        }
        RowGm src(in + r * kCols);
        TLOAD(x, src);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TADDS(y, x, 2.0f);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        pending = out + r * kCols;
        havePending = true;
    }
    if (havePending) {
        RowGm last(pending);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(last, y);
#ifdef RACY
        RowGm back(out + (rows - 1) * kCols);
        TLOAD(x, back);
#endif
    }
    if (stamp != nullptr) {
        stamp[0] = 1;
    }
}
