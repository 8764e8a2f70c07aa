// A nested MultiBuffered loop written like pto-isa's AUTO flash-attention kernels: the inner
// invoker's type is named with a `using` alias, the outer loop has FirstK = 1 / LastK = 1
// (iteration 0 is the prologue, the last one the epilogue), and the body branches on the
// phase. Tiles declared in the inner body get one copy per lane.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

template <typename T, int ROWS, int COLS, int BLOCKS, int SUB>
AICORE void phasedKernel(__gm__ T *out, __gm__ T *in)
{
    using TileT = Tile<TileType::Vec, T, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
    using GmT = GlobalTensor<T, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    constexpr int ELEMS = ROWS * COLS;

    MultiBuffered<2> mb;
    using InnerLoop = MultiBuffered<2>::NestedLoopInvoker<Range<SUB>>;
    mb.loop<Range<BLOCKS, SUB>, 1, 1>([&](auto outer, InnerLoop inner) {
        int blk = outer.iter;
        inner.template loop<0, 1>([&](auto ctx) {
            int s = ctx.iter;
            TileT x;
            GmT src(in + (blk * SUB + s) * ELEMS);
            GmT dst(out + (blk * SUB + s) * ELEMS);
            TLOAD(x, src);
            if (outer.phase == Phase::Prologue) {
                TMULS(x, x, 2.0f);
            }
            if (ctx.phase == Phase::Epilogue) {
                TADDS(x, x, 1.0f);
            }
            TSTORE(dst, x);
        });
    });
}

extern "C" __global__ AICORE void nested_phases(__gm__ uint8_t *out, __gm__ uint8_t *in)
{
#if defined(__DAV_C220_VEC__)
    phasedKernel<float, 16, 64, 5, 3>(reinterpret_cast<__gm__ float *>(out), reinterpret_cast<__gm__ float *>(in));
#endif
}
