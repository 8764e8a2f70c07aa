// One kernel calls two instantiations of a helper template: add_one<true> loads inside the
// helper and waits for that load there, add_one<false> gets a tile the kernel computed. The
// helper's copies need different lines, split on its own parameter with `if constexpr`.
#include <pto/pto-inst.hpp>
using namespace pto;
using RowsT = Tile<TileType::Vec, float, 8, 64>;
using RowsGm = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;

template <bool FRESH>
AICORE inline void add_one(RowsT &t, RowsT &o, RowsGm &src, RowsGm &dst)
{
    if constexpr (FRESH) {
        TLOAD(t, src);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t, a: MTE2 -> V
    }
    if constexpr (FRESH == true) {
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // RAW t, a: MTE2 -> V
    }  // per instantiation of add_one
    TADDS(o, t, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // RAW o: V -> MTE3
    TSTORE(dst, o);
}

extern "C" __global__ AICORE void add_one_twice(__gm__ float *out, __gm__ float *in)
{
    RowsT a;
    TASSIGN(a, 0x0);  // UB 2 KiB
    RowsT b;
    TASSIGN(b, 0x800);  // UB 2 KiB
    RowsT c;
    TASSIGN(c, 0x1000);  // UB 2 KiB
    RowsT d;
    TASSIGN(d, 0x1800);  // UB 2 KiB
    RowsGm src(in);
    RowsGm first(out);
    RowsGm second(out + 512);
    add_one<true>(a, b, src, first);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // o consumed: MTE3 -> V (flag reuse)
    TMULS(c, a, 2.0f);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  // o consumed: MTE3 -> V (flag reuse)
    pipe_barrier(PIPE_V);  // RAW t: TMULS -> TADDS on PIPE_V
    add_one<false>(c, d, src, second);
}
