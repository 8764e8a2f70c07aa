// gemm_single (AUTO mode): C = A * B for one M x N output tile, single buffered.
//
// A is M x K (fp16, row major), B is K x N (fp16, stored column major, i.e. as B^T
// row major: Layout::DN), C is M x N (fp32, row major). The K loop walks BASE_K wide
// slices: TLOAD GM->L1, TMOV L1->L0A/L0B, then TMATMUL for the first slice and
// TMATMUL_ACC for the rest into one L0C accumulator, which is stored after the loop.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int GEMM1_M = 128;
constexpr int GEMM1_N = 128;
// K: override with -DGEMM1_K=... (a positive multiple of GEMM1_BASE_K = 64).
#ifndef GEMM1_K
#define GEMM1_K 512
#endif
constexpr int GEMM1_BASE_K = 64;

template <typename TIn, typename TOut, int M, int N, int K, int BASE_K>
AICORE void gemmSingleKernel(__gm__ TOut *c, __gm__ TIn *a, __gm__ TIn *b)
{
    static_assert(K > 0 && K % BASE_K == 0, "K must be a positive multiple of BASE_K");
    constexpr int K_STEPS = K / BASE_K;

    using MatA = Tile<TileType::Mat, TIn, M, BASE_K, BLayout::ColMajor, M, BASE_K, SLayout::RowMajor>;
    using MatB = Tile<TileType::Mat, TIn, BASE_K, N, BLayout::RowMajor, BASE_K, N, SLayout::ColMajor>;
    using LeftT = TileLeft<TIn, M, BASE_K, M, BASE_K>;
    using RightT = TileRight<TIn, BASE_K, N, BASE_K, N>;
    using AccT = TileAcc<TOut, M, N, M, N>;

    using GmA = GlobalTensor<TIn, Shape<1, 1, 1, M, BASE_K>, Stride<1, 1, 1, K, 1>>;
    using GmB = GlobalTensor<TIn, Shape<1, 1, 1, BASE_K, N>, Stride<1, 1, 1, 1, K>, Layout::DN>;
    using GmC = GlobalTensor<TOut, Shape<1, 1, 1, M, N>, Stride<1, 1, 1, N, 1>>;

    MatA aMat;
    MatB bMat;
    LeftT aLeft;
    RightT bRight;
    AccT cAcc;

    for (int k = 0; k < K_STEPS; ++k) {
        GmA gA(a + k * BASE_K); // columns [k * BASE_K, (k + 1) * BASE_K) of A
        GmB gB(b + k * BASE_K); // rows    [k * BASE_K, (k + 1) * BASE_K) of B

        TLOAD(aMat, gA);
        TLOAD(bMat, gB);
        TMOV(aLeft, aMat);
        TMOV(bRight, bMat);
        if (k == 0) {
            TMATMUL(cAcc, aLeft, bRight);
        } else {
            TMATMUL_ACC(cAcc, cAcc, aLeft, bRight);
        }
    }

    GmC gC(c);
    TSTORE(gC, cAcc);
}

extern "C" __global__ AICORE void gemm_single(__gm__ uint8_t *c, __gm__ uint8_t *a, __gm__ uint8_t *b)
{
#if defined(__DAV_CUBE__)
    gemmSingleKernel<half, float, GEMM1_M, GEMM1_N, GEMM1_K, GEMM1_BASE_K>(
        reinterpret_cast<__gm__ float *>(c), reinterpret_cast<__gm__ half *>(a), reinterpret_cast<__gm__ half *>(b));
#endif
}
