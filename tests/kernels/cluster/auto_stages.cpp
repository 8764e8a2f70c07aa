// An AUTO cluster kernel (a5): no TASSIGN and no intra-core sync, the cube core's rounds split
// into two stages run through the MultiStaged helper (generic lambdas called in turn), the
// product handed to the vector cores through a GM workspace with a flag-pair object. Each
// vector core triples its 16-row half of each product into `out`, its rounds run by a loop
// helper of the kernel's own that calls a lambda with the round number.
#include <pto/pto-inst.hpp>
#include <pto/npu/a5/custom/TSync_Custom.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

constexpr int ROUNDS = 2;
constexpr int HALF = 16 * 32;
enum Semaphores : int { PRODUCT_READY = 0 };

template <int N, class Body>
AICORE inline void ForEachRound(Body &&body)
{
    for (int round = 0; round < N; ++round) {
        body(round);
    }
}

extern "C" __global__ AICORE void auto_stages(__gm__ float *out, __gm__ float *ws, __gm__ half *a, __gm__ half *b)
{
    constexpr TSync_Custom<SyncOpType::TSTORE_C2GM, SyncOpType::TLOAD> ready = {PRODUCT_READY};
#if defined(__DAV_CUBE__)
    using MatT = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using GmIn = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmW = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    MatT aMat;
    MatT bMat;
    TileLeft<half, 32, 32> aLeft;
    TileRight<half, 32, 32> bRight;
    TileAcc<float, 32, 32> product;
    GmIn gA(a);
    GmIn gB(b);
    GmW gW(ws);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    TMOV(aLeft, aMat);
    TMOV(bRight, bMat);
    MultiStaged<2> stages;
    for (int r = 0; r < ROUNDS; ++r) {
        stages.run(
            [&]() { TMATMUL(product, aLeft, bRight); },
            [&]() {
                if (r > 0) {
                    ready.allocate();  // both vector cores have read the last product
                }
                TSTORE(gW, product);
                ready.record();
            });
    }
    ready.allocate();  // the last product's reads
#endif
#if defined(__DAV_VEC__)
    using HalfT = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    HalfT x;
    int sub = get_subblockid();
    GmHalf gPart(ws + sub * HALF);
    ForEachRound<ROUNDS>([&](int r) {
        GmHalf gOut(out + (r * 2 + sub) * HALF);
        ready.wait();
        TLOAD(x, gPart);
        ready.free();
        TMULS(x, x, 3.0f);
        TSTORE(gOut, x);
    });
#endif
}
