// Names the user's files keep in a namespace, used qualified (`cfg::kCols`, `cfg::Pair`), and a
// signal built by a helper that returns a `pto::comm::Signal` temporary.
#include <pto/pto-inst.hpp>
#include <pto/comm/pto_comm_inst.hpp>

using namespace pto;

namespace cfg {
constexpr uint32_t kCols = 64;
struct Pair {
    int32_t first;
    int32_t second;
};
} // namespace cfg

using Row = Tile<TileType::Vec, float, 1, cfg::kCols, BLayout::RowMajor>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, cfg::kCols>, Stride<1, 1, 1, cfg::kCols, 1>>;

AICORE inline pto::comm::Signal DoneSignal(__gm__ int32_t *flags, int32_t slot)
{
    return pto::comm::Signal(flags + slot);
}

__global__ AICORE void copy_and_signal(__gm__ float *out, __gm__ float *in, __gm__ int32_t *flags)
{
    cfg::Pair at{2, 3};
    Row row;
    TASSIGN(row, 0x0);
    RowGm src(in + at.first * cfg::kCols);
    RowGm dst(out + at.second * cfg::kCols);
    TLOAD(row, src);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, row);
    pto::comm::Signal done = DoneSignal(flags, at.second);
    pto::comm::TNOTIFY(done, 1, pto::comm::NotifyOp::AtomicAdd);
}
