// GEMM in the shape of pto-isa's AUTO-mode a2a3 gemm kernel (kernels/automode/a2a3/gemm):
// an entry function instantiates templates; a helper sets the core's A/B/C pointers through
// `T *&` out-parameters from get_block_idx(); the K loop is a nested MultiBuffered loop over
// Range<panels, steps> (FirstK = LastK = 1): the outer lambda loads an L1 panel per lane,
// `inner.loop` extracts one K step per lane into ping-pong L0 tiles and accumulates with
// AccPhase-tagged matmuls; a helper stores each output tile with STPhase::Final.
//
// Problem 512 x 512 x 512 (fp16 in, fp32 out) on 4 cores, 256 x 256 of C per core.
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"

using namespace pto;
using namespace pto_auto;

constexpr uint32_t LANES = 2;

template <typename TOut, typename TIn, int M, int K, int N, uint32_t CORE_M, uint32_t CORE_N>
AICORE inline void CoreOffsets(__gm__ TIn *&aCore, __gm__ TIn *&bCore, __gm__ TOut *&cCore, __gm__ TOut *c,
                               __gm__ TIn *a, __gm__ TIn *b)
{
    constexpr uint32_t mBlocks = M / CORE_M;
    uint32_t mIdx = get_block_idx() % mBlocks;
    uint32_t nIdx = get_block_idx() / mBlocks;
    aCore = a + mIdx * CORE_M * K;
    bCore = b + nIdx * CORE_N * K;
    cCore = c + mIdx * CORE_M * N + nIdx * CORE_N;
}

template <typename TOut, int M, int N, uint32_t BM, uint32_t BN, typename AccTile>
AICORE inline void WriteBack(AccTile &acc, __gm__ TOut *dst, uint32_t mi, uint32_t ni)
{
    using OutShape = TileShape2D<TOut, BM, BN, Layout::ND>;
    using OutStride = BaseShape2D<TOut, M, N, Layout::ND>;
    using OutGm = GlobalTensor<TOut, OutShape, OutStride, Layout::ND>;

    OutGm gOut(dst + mi * BM * N + ni * BN);
    TSTORE<STPhase::Final>(gOut, acc);
}

template <typename TOut, typename TIn, int M, int K, int N, uint32_t CORE_M, uint32_t CORE_N, uint32_t BM,
          uint32_t BK, uint32_t BN, uint32_t STEPS>
AICORE inline void GemmCore(__gm__ TOut *c, __gm__ TIn *a, __gm__ TIn *b)
{
    __gm__ TIn *aCore = nullptr;
    __gm__ TIn *bCore = nullptr;
    __gm__ TOut *cCore = nullptr;
    CoreOffsets<TOut, TIn, M, K, N, CORE_M, CORE_N>(aCore, bCore, cCore, c, a, b);

    using PanelA = Tile<TileType::Mat, TIn, BM, BK * STEPS, BLayout::ColMajor, BM, BK * STEPS, SLayout::RowMajor>;
    using PanelB = Tile<TileType::Mat, TIn, BK * STEPS, BN, BLayout::RowMajor, BK * STEPS, BN, SLayout::ColMajor>;
    using L0A = TileLeft<TIn, BM, BK, BM, BK>;
    using L0B = TileRight<TIn, BK, BN, BK, BN>;
    using L0C = TileAcc<TOut, BM, BN, BM, BN>;

    using ShapeA = TileShape2D<TIn, BM, BK * STEPS, Layout::ND>;
    using StrideA = BaseShape2D<TIn, M, K, Layout::ND>;
    using GmA = GlobalTensor<TIn, ShapeA, StrideA, Layout::ND>;
    using ShapeB = TileShape2D<TIn, BK * STEPS, BN, Layout::DN>;
    using StrideB = BaseShape2D<TIn, K, N, Layout::DN>;
    using GmB = GlobalTensor<TIn, ShapeB, StrideB, Layout::DN>;

    constexpr uint32_t mTiles = CORE_M / BM;
    constexpr uint32_t nTiles = CORE_N / BN;
    constexpr int panels = K / (BK * STEPS);

    L0C acc;
    MultiBuffered<LANES> db;
    L0A aL0[LANES];
    L0B bL0[LANES];
    for (uint32_t mi = 0; mi < mTiles; mi++) {
        for (uint32_t ni = 0; ni < nTiles; ni++) {
            db.loop<Range<panels, STEPS>, 1, 1>([&](auto panelCtx, auto inner) {
                int panel = panelCtx.iter;
                PanelA aL1;
                PanelB bL1;
                GmA gA(aCore + mi * BM * K + panel * STEPS * BK);
                GmB gB(bCore + ni * BN * K + panel * STEPS * BK);
                TLOAD(aL1, gA);
                TLOAD(bL1, gB);

                inner.loop([&](auto stepCtx) {
                    int step = stepCtx.iter;
                    int lane = stepCtx.bufferId;
                    bool first = panel == 0 && step == 0;
                    bool last = panel == panels - 1 && step == STEPS - 1;

                    TEXTRACT(aL0[lane], aL1, 0, step * BK);
                    TEXTRACT(bL0[lane], bL1, step * BK, 0);
                    if (first) {
                        TMATMUL<AccPhase::Partial>(acc, aL0[lane], bL0[lane]);
                    } else if (last) {
                        TMATMUL_ACC<AccPhase::Final>(acc, acc, aL0[lane], bL0[lane]);
                    } else {
                        TMATMUL_ACC<AccPhase::Partial>(acc, acc, aL0[lane], bL0[lane]);
                    }
                });
            });
            WriteBack<TOut, M, N, BM, BN, L0C>(acc, cCore, mi, ni);
        }
    }
}

extern "C" __global__ AICORE void gemm_automode(__gm__ uint8_t *c, __gm__ uint8_t *a, __gm__ uint8_t *b)
{
#if defined(__DAV_C220_CUBE__)
    GemmCore<float, half, 512, 512, 512, 256, 256, 128, 64, 256, 4>(reinterpret_cast<__gm__ float *>(c),
                                                           reinterpret_cast<__gm__ half *>(a),
                                                           reinterpret_cast<__gm__ half *>(b));
#endif
}
