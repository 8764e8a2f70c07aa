// gemm_double (manual mode): C = A * B, double buffered in L1 and in L0A/L0B.
//
// Hand-placed twin of auto.cpp: same tiling (128 x 64 x 256 base tile, L1 panels of
// STEP_K = 4 K steps) and the same tile program, written as plain loops with explicit
// ping-pong indices. The L1 and L0 slots toggle continuously across panels and output
// tiles (not restarted per output tile), so the next tile's first panel load can go
// into the slot the current tile is not reading.
//
// Buffer map (each buffer is its own address space; sizes for the default base tile):
//   L1   aMat[0] 0x00000  aMat[1] 0x10000   (128 x 256 fp16 = 64 KiB each)
//        bMat[0] 0x20000  bMat[1] 0x40000   (256 x 256 fp16 = 128 KiB each) -> 384 KiB
//   L0A  aLeft[0] 0x0000  aLeft[1] 0x8000   (128 x 64 fp16 = 16 KiB in a 32 KiB half)
//   L0B  bRight[0] 0x0000 bRight[1] 0x8000  (64 x 256 fp16 = 32 KiB each)
//   L0C  cAcc 0x00000                       (128 x 256 fp32 = 128 KiB, the whole L0C)
//
// Synchronisation (l1 = L1 slot, l0 = L0 slot):
//   MTE2->MTE1 ev l1      A panel loaded      (waited by the first TEXTRACT of the panel)
//   MTE2->MTE1 ev l1 + 2  B panel loaded
//   MTE1->MTE2 ev l1      panel slot free     (set after the panel's last TEXTRACT)
//   MTE1->M    ev l0      L0A/L0B slot filled
//   M->MTE1    ev l0      L0A/L0B slot free   (set after the TMATMUL that read it)
//   M->FIX     ev0        output tile complete, before its TSTORE
//   FIX->M     ev0        cAcc free again     (waited before the next tile's first TMATMUL)
// The reverse edges (MTE1->MTE2, M->MTE1, FIX->M) are primed before the loops and
// drained after them.
//
// Problem size: override with -DGEMM_M=... -DGEMM_K=... -DGEMM_N=... (M a multiple of
// 128, N a multiple of 256, K a multiple of 64, and of 256 once K >= 256).
#include <pto/pto-inst.hpp>

using namespace pto;

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

    constexpr uint32_t MAT_A_BYTES = BASE_M * PANEL_K * sizeof(TIn);
    constexpr uint32_t MAT_B_BYTES = PANEL_K * BASE_N * sizeof(TIn);
    constexpr uint32_t L0_HALF = 32 * 1024; // L0A/L0B are split into a ping and a pong half
    static_assert(2 * (MAT_A_BYTES + MAT_B_BYTES) <= 512 * 1024, "L1 overflow");
    static_assert(BASE_M * BASE_K * sizeof(TIn) <= L0_HALF && BASE_K * BASE_N * sizeof(TIn) <= L0_HALF,
                  "an L0A/L0B slice must fit in half of the 64 KiB buffer");
    static_assert(BASE_M * BASE_N * sizeof(TOut) <= 128 * 1024, "L0C overflow");

    MatA aMat[2];
    TASSIGN(aMat[0], 0x0);
    TASSIGN(aMat[1], MAT_A_BYTES);
    MatB bMat[2];
    TASSIGN(bMat[0], 2 * MAT_A_BYTES);
    TASSIGN(bMat[1], 2 * MAT_A_BYTES + MAT_B_BYTES);
    LeftT aLeft[2];
    TASSIGN(aLeft[0], 0x0);
    TASSIGN(aLeft[1], L0_HALF);
    RightT bRight[2];
    TASSIGN(bRight[0], 0x0);
    TASSIGN(bRight[1], L0_HALF);
    AccT cAcc;
    TASSIGN(cAcc, 0x0);

    // Prime the reverse edges: both L1 slots, both L0 slots and the accumulator are free.
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
    set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);

    int l1 = 0; // L1 panel slot, toggles per panel
    int l0 = 0; // L0A/L0B slot, toggles per K step
    for (int m = 0; m < M_TILES; ++m) {
        for (int n = 0; n < N_TILES; ++n) {
            wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0); // the previous tile's TSTORE has read cAcc

            for (int p = 0; p < NUM_PANELS; ++p) {
                GmA gA(a + m * BASE_M * K + p * PANEL_K);
                GmB gB(b + n * BASE_N * K + p * PANEL_K);

                wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)l1); // panel p - 2 fully extracted
                TLOAD(aMat[l1], gA);
                set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)l1);
                TLOAD(bMat[l1], gB);
                set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(l1 + 2));

                for (int kk = 0; kk < STEP_K; ++kk) {
                    wait_flag(PIPE_M, PIPE_MTE1, (event_t)l0); // matmul two steps back read this slot
                    if (kk == 0) {
                        wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)l1); // A panel arrived
                    }
                    TEXTRACT(aLeft[l0], aMat[l1], 0, kk * BASE_K);
                    if (kk == 0) {
                        wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(l1 + 2)); // B panel arrived
                    }
                    TEXTRACT(bRight[l0], bMat[l1], kk * BASE_K, 0);
                    if (kk == STEP_K - 1) {
                        set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)l1); // last read of this panel
                    }
                    set_flag(PIPE_MTE1, PIPE_M, (event_t)l0);

                    wait_flag(PIPE_MTE1, PIPE_M, (event_t)l0);
                    if (p == 0 && kk == 0) {
                        TMATMUL(cAcc, aLeft[l0], bRight[l0]);
                    } else {
                        TMATMUL_ACC(cAcc, cAcc, aLeft[l0], bRight[l0]);
                    }
                    set_flag(PIPE_M, PIPE_MTE1, (event_t)l0); // L0 slot may be refilled
                    l0 = 1 - l0;
                }
                l1 = 1 - l1;
            }

            GmC gC(c + m * BASE_M * N + n * BASE_N);
            set_flag(PIPE_M, PIPE_FIX, EVENT_ID0); // all matmuls of this tile issued before
            wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
            TSTORE(gC, cAcc);
            set_flag(PIPE_FIX, PIPE_M, EVENT_ID0); // cAcc may be overwritten
        }
    }

    // Drain the reverse edges (one pending set each, also when a loop ran 0 times).
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
}

extern "C" __global__ AICORE void gemm_double(__gm__ uint8_t *c, __gm__ uint8_t *a, __gm__ uint8_t *b)
{
#if defined(__DAV_CUBE__)
    gemmDoubleKernel<half, float, GEMM_M, GEMM_K, GEMM_N, GEMM2_BASE_M, GEMM2_BASE_K, GEMM2_BASE_N, GEMM2_STEP_K>(
        reinterpret_cast<__gm__ float *>(c), reinterpret_cast<__gm__ half *>(a), reinterpret_cast<__gm__ half *>(b));
#endif
}
