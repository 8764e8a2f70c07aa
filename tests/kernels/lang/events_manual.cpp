// A manual kernel synchronised only with typed events, in the shape of pto-isa's single-instruction
// tests: events recorded by assignment and at construction, waited on as trailing instruction
// arguments, with TSYNC and with Wait(); one passed to a helper; one constructed per loop
// iteration (its id counts on); one between two vector classes (a barrier); PtoSetWaitFlag.
#include <pto/pto-inst.hpp>

using namespace pto;

template <typename TileT, typename EventT>
AICORE inline void ScaleAfter(TileT &t, EventT &ready)
{
    TMULS(t, t, 0.5f, ready);
}

template <typename T, int R, int C>
__global__ AICORE void ScaledSum(__gm__ T __out__ *out, __gm__ T __in__ *a, __gm__ T __in__ *b)
{
    using Gm = GlobalTensor<T, Shape<1, 1, 1, R, C>, Stride<1, 1, 1, C, 1>>;
    using TileT = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, -1, -1>;
    TileT lhs(R, C), rhs(R, C), sum(R, C);
    TASSIGN(lhs, 0x0);
    TASSIGN(rhs, 0x2000);
    TASSIGN(sum, 0x4000);
    Gm gA(a), gB(b), gOut(out);

    Event<Op::TLOAD, Op::TADD> lhsIn;
    Event<Op::TLOAD, Op::TADD> rhsIn;
    lhsIn = TLOAD(lhs, gA);
    rhsIn = TLOAD(rhs, gB);
    TSYNC(lhsIn);
    Event<Op::TADD, Op::TMULS> added = TADD(sum, lhs, rhs, rhsIn);
    ScaleAfter(sum, added);
    Event<Op::TMULS, Op::TSTORE_VEC> scaled;
    scaled.Record();
    scaled.Wait();
    TSTORE(gOut, sum);

    for (int i = 1; i < 3; ++i) {
        Event<Op::TSTORE_VEC, Op::TLOAD> stored;
        stored.Record();
        Event<Op::TLOAD, Op::TMULS> reloaded;
        TLOAD(sum, gOut, stored);
        reloaded.Record();
        TMULS(sum, sum, 2.0f, reloaded);
        PtoSetWaitFlag<PIPE_V, PIPE_MTE3>();
        TSTORE(gOut, sum);
    }
    out = gOut.data();
}

extern "C" __global__ AICORE void scaled_sum(__gm__ float *out, __gm__ float *a, __gm__ float *b)
{
    ScaledSum<float, 16, 64>(out, a, b);
}
