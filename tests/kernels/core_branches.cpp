// AscendC-style code for one core type inside a function both cores compile
// (`if ASCEND_IS_AIV { ... }`), and the scalar unit's cache maintenance named without its
// enumeration (`dcci(p, SINGLE_CACHE_LINE)`), as the device compiler accepts both.
#include "kernel_operator.h"
#include <pto/pto-inst.hpp>

using namespace pto;

using TileT = Tile<TileType::Vec, half, 16, 128, BLayout::RowMajor, 16, 128>;
using GmT = GlobalTensor<half, Shape<1, 1, 1, 16, 128>, Stride<1, 1, 1, 128, 1>>;

extern "C" __global__ AICORE void per_core(GM_ADDR out, GM_ADDR in, GM_ADDR flags)
{
    dcci((__gm__ void *)flags, SINGLE_CACHE_LINE);
    dcci((__gm__ void *)flags, cache_line_t::ENTIRE_DATA_CACHE);
    TileT x;
    GmT src((__gm__ half *)in);
    GmT dst((__gm__ half *)out);
    if ASCEND_IS_AIV {
        TLOAD(x, src);
        TABS(x, x);
        TSTORE(dst, x);
    }
    if ASCEND_IS_AIC {
        TLOAD(x, src);
        TADDS(x, x, (half)1.0);
        TSTORE(dst, x);
    }
}
