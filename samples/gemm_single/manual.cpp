// gemm_single (manual mode): C = A * B for one M x N output tile, single buffered.
//
// Hand-placed twin of auto.cpp.
//
// Buffer map (each buffer is its own address space):
//   L1   aMat  0x00000 (M x BASE_K fp16 = 16 KiB)   bMat 0x04000 (BASE_K x N fp16 = 16 KiB)
//   L0A  aLeft 0x00000 (16 KiB)
//   L0B  bRight 0x00000 (16 KiB)
//   L0C  cAcc  0x00000 (M x N fp32 = 64 KiB)
//
// One buffer per stage, so the only overlap is between neighbouring K steps on
// different pipes: TLOAD of step k + 1 runs while TMATMUL of step k computes.
//   MTE2->MTE1 ev0  aMat/bMat loaded          MTE1->MTE2 ev0  aMat/bMat free (TMOVs done)
//   MTE1->M    ev0  aLeft/bRight filled       M->MTE1    ev0  aLeft/bRight free (matmul done)
//   M->FIX     ev0  accumulator final, before the TSTORE
// The two reverse edges are primed before the K loop and drained after it.
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

    constexpr uint32_t MAT_A_BYTES = M * BASE_K * sizeof(TIn);
    static_assert(MAT_A_BYTES + BASE_K * N * sizeof(TIn) <= 512 * 1024, "L1 overflow");
    static_assert(M * BASE_K * sizeof(TIn) <= 64 * 1024 && BASE_K * N * sizeof(TIn) <= 64 * 1024, "L0A/L0B overflow");
    static_assert(M * N * sizeof(TOut) <= 128 * 1024, "L0C overflow");

    MatA aMat;
    TASSIGN(aMat, 0x0);
    MatB bMat;
    TASSIGN(bMat, MAT_A_BYTES);
    LeftT aLeft;
    TASSIGN(aLeft, 0x0);
    RightT bRight;
    TASSIGN(bRight, 0x0);
    AccT cAcc;
    TASSIGN(cAcc, 0x0);

    // Prime the reverse edges: L1 and L0A/L0B start out free.
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);

    for (int k = 0; k < K_STEPS; ++k) {
        GmA gA(a + k * BASE_K); // columns [k * BASE_K, (k + 1) * BASE_K) of A
        GmB gB(b + k * BASE_K); // rows    [k * BASE_K, (k + 1) * BASE_K) of B

        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0); // TMOVs of step k - 1 have read aMat/bMat
        TLOAD(aMat, gA);
        TLOAD(bMat, gB);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);

        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0); // step k is in L1
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);    // matmul of step k - 1 has read aLeft/bRight
        TMOV(aLeft, aMat);
        TMOV(bRight, bMat);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0); // L1 may be refilled
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);    // L0A/L0B hold step k

        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        if (k == 0) {
            TMATMUL(cAcc, aLeft, bRight);
        } else {
            TMATMUL_ACC(cAcc, cAcc, aLeft, bRight);
        }
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0); // L0A/L0B may be refilled
    }
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0); // accumulator complete

    // Drain the reverse edges (one pending set each, also when the loop ran 0 times).
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);

    GmC gC(c);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(gC, cAcc);
}

extern "C" __global__ AICORE void gemm_single(__gm__ uint8_t *c, __gm__ uint8_t *a, __gm__ uint8_t *b)
{
#if defined(__DAV_CUBE__)
    gemmSingleKernel<half, float, GEMM1_M, GEMM1_N, GEMM1_K, GEMM1_BASE_K>(
        reinterpret_cast<__gm__ float *>(c), reinterpret_cast<__gm__ half *>(a), reinterpret_cast<__gm__ half *>(b));
#endif
}
