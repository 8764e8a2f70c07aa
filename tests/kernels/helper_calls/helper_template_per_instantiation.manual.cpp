// A kernel template instantiated twice calls a helper template of the same file: only the
// instantiation whose helper loads inside it waits for that load there, so the helper's
// line is split on the helper's own template parameter (FRESH), not on the kernel's.
#include <pto/pto-inst.hpp>
#include "acl/acl.h"

using namespace pto;
using RowsT = Tile<TileType::Vec, float, 8, 64>;
using RowsGm = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

template <bool FRESH>
AICORE inline void add_one(RowsT &t, RowsT &o, RowsGm &src, RowsGm &dst)
{
    if constexpr (FRESH) {
        TLOAD(t, src);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t: MTE2 -> V
    }
    if constexpr (FRESH == true) {
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t: MTE2 -> V
    }  // per instantiation of add_one
    TADDS(o, t, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    TSTORE(dst, o);
}

template <bool LOAD_IN_HELPER>
__global__ AICORE void AddOneKernel(__gm__ float *out, __gm__ float *in)
{
    RowsT t;
    TASSIGN(t, 0x0);  // UB 2 KiB
    RowsT o;
    TASSIGN(o, 0x800);  // UB 2 KiB
    RowsGm src(in);
    RowsGm dst(out);
    if constexpr (!LOAD_IN_HELPER) {
        TLOAD(t, src);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW t: MTE2 -> V
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW/WAW t: MTE2 -> V
        TMULS(t, t, 2.0f);
    }
    if constexpr (LOAD_IN_HELPER == false) {
        pipe_barrier(PIPE_V);  // RAW t: TMULS -> TADDS on PIPE_V
    }  // per instantiation of AddOneKernel
    add_one<LOAD_IN_HELPER>(t, o, src, dst);
}

void LaunchAddOne(float *out, float *in, aclrtStream stream)
{
    AddOneKernel<true><<<1, nullptr, stream>>>(out, in);
    AddOneKernel<false><<<1, nullptr, stream>>>(out, in);
}
