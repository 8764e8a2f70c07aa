// Helpers used as values: one that moves data and loops over a count known only at run time runs
// where it is called (its statements are checked with the kernel's), one that only computes runs
// at compile time (its value sizes a tile).
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr uint64_t kStageUb = 0x1000;

constexpr int32_t RoundUp(int32_t n, int32_t unit)
{
    int32_t r = unit;
    while (r < n) {
        r = r + unit;
    }
    return r;
}

PTO_INTERNAL void ForgetLines(__gm__ int32_t *p, int32_t n)
{
    for (int32_t i = 0; i < n; ++i) {
        dcci(static_cast<__gm__ void *>(p + i * 8), cache_line_t::SINGLE_CACHE_LINE);
    }
    dsb(DSB_DDR);
}

// How many of the first n 32-byte slots hold a 1.
PTO_INTERNAL int32_t CountSet(__gm__ int32_t *slots, int32_t n)
{
    ForgetLines(slots, n);
    __ubuf__ int32_t *stage = reinterpret_cast<__ubuf__ int32_t *>(kStageUb);
    copy_gm_to_ubuf(static_cast<__ubuf__ void *>(stage), static_cast<__gm__ void *>(slots), 0, 1, n, 0, 0);
#ifndef SKIP_DRAIN
    pipe_barrier(PIPE_ALL);
#endif
    int32_t count = 0;
    for (int32_t i = 0; i < n; ++i) {
        if (stage[i * 8] == 1) {
            count = count + 1;
        }
    }
    return count;
}

extern "C" __global__ AICORE void count_slots(__gm__ float *x, __gm__ float *y, __gm__ int32_t *slots, int32_t n)
{
    using Row = Tile<TileType::Vec, float, 1, RoundUp(40, 16)>;  // 48 columns
    using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, 48>, Stride<48, 48, 48, 48, 1>>;
    Row row;
    TASSIGN(row, 0x0);
    RowGm src(x), dst(y);
    const int32_t set = static_cast<int32_t>(CountSet(slots, n));
    int32_t total = 0;
    total = total + CountSet(slots, n);
    CountSet(slots, n);  // the value is dropped, the work is done
    TLOAD(row, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADDS(row, row, static_cast<float>(set + total));
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, row);
}
