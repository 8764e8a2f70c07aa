// A manual kernel synchronised only with typed events, in the shape of pto-isa's single-instruction
// tests (a template __global__ kernel started by a host launcher): events recorded by assignment
// and at construction, waited on as trailing instruction arguments, with TSYNC and with Wait();
// one passed to a helper; one constructed per loop iteration (its id counts on); one between two
// vector classes (a barrier); PtoSetWaitFlag.
#include <pto/pto-inst.hpp>

using namespace pto;

template <typename TileT>
AICORE inline void ScaleAfter(TileT &t)
{
    TMULS(t, t, 0.5f);
}

template <typename T, int R, int C>
__global__ AICORE void ScaledSum(__gm__ T __out__ *out, __gm__ T __in__ *a, __gm__ T __in__ *b)
{
    using Gm = GlobalTensor<T, Shape<1, 1, 1, R, C>, Stride<1, 1, 1, C, 1>>;
    using TileT = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, -1, -1>;
    TileT lhs(R, C), rhs(R, C), sum(R, C);
    Gm gA(a), gB(b), gOut(out);

    TLOAD(lhs, gA);
    TLOAD(rhs, gB);
    TADD(sum, lhs, rhs);
    ScaleAfter(sum);
    TSTORE(gOut, sum);

    for (int i = 1; i < 3; ++i) {
        TLOAD(sum, gOut);
        TMULS(sum, sum, 2.0f);
        TSTORE(gOut, sum);
    }
    out = gOut.data();
}

// Host side: the launcher starts the kernel; the file instantiates it for fp32 16 x 64 tiles.
template <typename T, int R, int C>
void LaunchScaledSum(T *out, T *a, T *b, void *stream)
{
    ScaledSum<T, R, C><<<1, nullptr, stream>>>(out, a, b);
}

template void LaunchScaledSum<float, 16, 64>(float *out, float *a, float *b, void *stream);
