// A MultiBuffered loop whose body passes its context's phase on as a helper template's
// argument (`ctx.phase` is a constant of the context's type): the last LastK iterations run
// the helper's epilogue branch, which writes the running sum out. Each phase is a loop of
// its own, so each call names one instantiation of the helper.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

template <Phase P, typename TileT, typename GmT>
AICORE inline void accumulate(TileT &sum, TileT &part, GmT &dst)
{
    TADD(sum, sum, part);
    if constexpr (P == Phase::Epilogue) {
        TSTORE(dst, sum);
    }
}

template <typename T, int ROWS, int COLS, int STEPS, int LAST>
AICORE void phaseArgKernel(__gm__ T *out, __gm__ T *in)
{
    using TileT = Tile<TileType::Vec, T, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using GmT = GlobalTensor<T, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    constexpr int ELEMS = ROWS * COLS;

    TileT sum;
    TEXPANDS(sum, 0.0f);
    MultiBuffered<2> mb;
    mb.loop<Range<STEPS>, 0, LAST>([&](auto ctx) {
        TileT part;
        GmT src(in + ctx.iter * ELEMS);
        GmT dst(out + (ctx.iter - (STEPS - LAST)) * ELEMS);
        TLOAD(part, src);
        accumulate<ctx.phase>(sum, part, dst);
    });
}

extern "C" __global__ AICORE void phase_template_arg(__gm__ uint8_t *out, __gm__ uint8_t *in)
{
#if defined(__DAV_C220_VEC__)
    phaseArgKernel<float, 16, 64, 5, 2>(reinterpret_cast<__gm__ float *>(out), reinterpret_cast<__gm__ float *>(in));
#endif
}
