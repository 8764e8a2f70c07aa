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
    }
    TADDS(o, t, 1.0f);
    TSTORE(dst, o);
}

extern "C" __global__ AICORE void add_one_twice(__gm__ float *out, __gm__ float *in)
{
    RowsT a;
    RowsT b;
    RowsT c;
    RowsT d;
    RowsGm src(in);
    RowsGm first(out);
    RowsGm second(out + 512);
    add_one<true>(a, b, src, first);
    TMULS(c, a, 2.0f);
    add_one<false>(c, d, src, second);
}
