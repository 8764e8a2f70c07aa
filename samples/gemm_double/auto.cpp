// gemm_double (AUTO mode): C = A * B, double buffered in L1 and in L0A/L0B.
//
// A is M x K (fp16, row major), B is K x N (fp16, stored column major: Layout::DN),
// C is M x N (fp32, row major). One core computes the whole problem.
//
// Tiling: output tiles of BASE_M x BASE_N = 128 x 256, K steps of BASE_K = 64.
// Every STEP_K (= 4) K steps form an L1 panel: A panel BASE_M x (STEP_K * BASE_K) and
// B panel (STEP_K * BASE_K) x BASE_N, loaded GM->L1 in one TLOAD each. Each K step
// TEXTRACTs its slice of the panels into L0A/L0B and accumulates into the L0C tile
// cAcc; the finished output tile is stored L0C->GM. Panels and L0 slices are double
// buffered with pto-isa's MultiBuffered<2> helper: its lambda runs once per iteration
// with a compile-time bufferId (lane). The L1 panel tiles are declared inside the panel
// lambda, so the compiler gives each lane its own aMat/bMat; the L0 tiles are arrays
// indexed by the inner loop's bufferId.
//
// Problem size: override with -DGEMM_M=... -DGEMM_K=... -DGEMM_N=... (M a multiple of
// 128, N a multiple of 256, K a multiple of 64, and of 256 once K >= 256).
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

#ifndef GEMM_M
#define GEMM_M 256
#endif
#ifndef GEMM_K
#define GEMM_K 512
#endif
#ifndef GEMM_N
#define GEMM_N 256
#endif

constexpr int GEMM2_BASE_M = 128;
constexpr int GEMM2_BASE_K = 64;
constexpr int GEMM2_BASE_N = 256;
constexpr int GEMM2_K_STEPS = GEMM_K / GEMM2_BASE_K;
constexpr int GEMM2_STEP_K = GEMM2_K_STEPS < 4 ? GEMM2_K_STEPS : 4; // K steps per L1 panel

template <typename TIn, typename TOut, int M, int K, int N, int BASE_M, int BASE_K, int BASE_N, int STEP_K>
AICORE void gemmDoubleKernel(__gm__ TOut *c, __gm__ TIn *a, __gm__ TIn *b)
{
    static_assert(STEP_K >= 1, "need at least one K step per panel");
    static_assert(M % BASE_M == 0 && N % BASE_N == 0, "M, N must be multiples of the base tile");
    static_assert(K % (BASE_K * STEP_K) == 0, "K must be a multiple of the L1 panel depth");

    constexpr int M_TILES = M / BASE_M;
    constexpr int N_TILES = N / BASE_N;
    constexpr int PANEL_K = BASE_K * STEP_K;
    constexpr int NUM_PANELS = K / PANEL_K;

    using MatA = Tile<TileType::Mat, TIn, BASE_M, PANEL_K, BLayout::ColMajor, BASE_M, PANEL_K, SLayout::RowMajor>;
    using MatB = Tile<TileType::Mat, TIn, PANEL_K, BASE_N, BLayout::RowMajor, PANEL_K, BASE_N, SLayout::ColMajor>;
    using LeftT = TileLeft<TIn, BASE_M, BASE_K, BASE_M, BASE_K>;
    using RightT = TileRight<TIn, BASE_K, BASE_N, BASE_K, BASE_N>;
    using AccT = TileAcc<TOut, BASE_M, BASE_N, BASE_M, BASE_N>;

    using GmA = GlobalTensor<TIn, Shape<1, 1, 1, BASE_M, PANEL_K>, Stride<1, 1, 1, K, 1>>;
    using GmB = GlobalTensor<TIn, Shape<1, 1, 1, PANEL_K, BASE_N>, Stride<1, 1, 1, 1, K>, Layout::DN>;
    using GmC = GlobalTensor<TOut, Shape<1, 1, 1, BASE_M, BASE_N>, Stride<1, 1, 1, N, 1>>;

    LeftT aLeft[2];
    RightT bRight[2];
    AccT cAcc;

    for (int m = 0; m < M_TILES; ++m) {
        for (int n = 0; n < N_TILES; ++n) {
            MultiBuffered<2> panelLoop;
            panelLoop.loop<Range<NUM_PANELS>>([&](auto panel) {
                const int p = panel.iter;
                MatA aMat; // one copy per lane: panel p + 1 loads while panel p is consumed
                MatB bMat;
                GmA gA(a + m * BASE_M * K + p * PANEL_K);
                GmB gB(b + n * BASE_N * K + p * PANEL_K);

                TLOAD(aMat, gA);
                TLOAD(bMat, gB);

                MultiBuffered<2> stepLoop;
                stepLoop.loop<Range<STEP_K>>([&](auto step) {
                    const int kk = step.iter;
                    const int sb = step.bufferId;
                    const bool first = (p == 0 && kk == 0);
                    const bool last = (p == NUM_PANELS - 1 && kk == STEP_K - 1);

                    TEXTRACT(aLeft[sb], aMat, 0, kk * BASE_K);
                    TEXTRACT(bRight[sb], bMat, kk * BASE_K, 0);
                    if (first && last) {
                        TMATMUL<AccPhase::Final>(cAcc, aLeft[sb], bRight[sb]);
                    } else if (first) {
                        TMATMUL<AccPhase::Partial>(cAcc, aLeft[sb], bRight[sb]);
                    } else if (last) {
                        TMATMUL_ACC<AccPhase::Final>(cAcc, cAcc, aLeft[sb], bRight[sb]);
                    } else {
                        TMATMUL_ACC<AccPhase::Partial>(cAcc, cAcc, aLeft[sb], bRight[sb]);
                    }
                });
            });

            GmC gC(c + m * BASE_M * N + n * BASE_N);
            TSTORE<STPhase::Final>(gC, cAcc);
        }
    }
}

extern "C" __global__ AICORE void gemm_double(__gm__ uint8_t *c, __gm__ uint8_t *a, __gm__ uint8_t *b)
{
#if defined(__DAV_CUBE__)
    gemmDoubleKernel<half, float, GEMM_M, GEMM_K, GEMM_N, GEMM2_BASE_M, GEMM2_BASE_K, GEMM2_BASE_N, GEMM2_STEP_K>(
        reinterpret_cast<__gm__ float *>(c), reinterpret_cast<__gm__ half *>(a), reinterpret_cast<__gm__ half *>(b));
#endif
}
