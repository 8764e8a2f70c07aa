// The compiler invocation decides what this kernel is: its tile height comes from a header
// forced in with -include (FORCED_ROWS, no #include here), its width from the language
// standard (C++20 doubles it), and its instruction from -D/-U (USE_ABS).
#include <pto/pto-inst.hpp>

using namespace pto;

#if __cplusplus >= 202002L
constexpr int ENV_COLS = 128;
#else
constexpr int ENV_COLS = 64;
#endif

using TileT = Tile<TileType::Vec, float, FORCED_ROWS, ENV_COLS, BLayout::RowMajor, FORCED_ROWS, ENV_COLS>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, FORCED_ROWS, ENV_COLS>, Stride<1, 1, 1, ENV_COLS, 1>>;

extern "C" __global__ AICORE void env_kernel(__gm__ float *out, __gm__ float *in)
{
    TileT x;
    GmT src(in);
    GmT dst(out);
    TLOAD(x, src);
#ifdef USE_ABS
    TABS(x, x);
#else
    TEXP(x, x);
#endif
    TSTORE(dst, x);
}
