// The shape of pto-isa's communication kernels around the tile code: parameters written by a
// macro, a GM pointer to a host-filled context struct, a traits struct whose static members
// build on each other and are read as a template argument, an initializer split by `#if`, and
// the soft-barrier workspace size.
#include <pto/pto-inst.hpp>

using namespace pto;

struct PeerContext {
    uint32_t rank;
    uint32_t ranks;
    uint64_t window[8];
};

constexpr int kUbHalf = 96 * 1024;

template <int COLS>
struct CopyTraits {
    static constexpr int32_t ROWS_FIT = kUbHalf / (COLS * 4);
    static constexpr int32_t ROWS = (ROWS_FIT >= 8) ? 8 : (ROWS_FIT >= 1 ? ROWS_FIT : 1);
};

constexpr int32_t kCols =
#if defined(WIDE_ROWS)
    256;
#else
    128;
#endif

template <int COLS, int ROWS>
AICORE void CopyRows(__gm__ float *dst, __gm__ float *src)
{
    using Rows = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using RowsGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    Rows rows;
    TASSIGN(rows, 0x0);
    RowsGm from(src), to(dst + SYNCALL_SOFT_WORKSPACE_INT32);
    TLOAD(rows, from);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(to, rows);
}

#define COPY_PARAMS __gm__ float *dst, __gm__ float *src, __gm__ PeerContext *ctx

extern "C" __global__ AICORE void copy_rows(COPY_PARAMS)
{
    (void)ctx;
    CopyRows<kCols, CopyTraits<kCols>::ROWS>(dst, src);
}
