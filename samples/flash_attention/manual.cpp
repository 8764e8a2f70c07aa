// flash_attention (manual mode): the hand-written twin of auto.cpp, for a2a3.
//
// Same kernel template, pipes, loop and launcher; every tile bound to an address, every pipe
// ordered with flags. The pipes' own ffts flags (filled / freed, inside TPUSH and TPOP) are the
// only signals between the cores; everything below orders one core's pipes.
//
// Cube core (ROWS = S0 = 128, D = 128, TILE = 128; every tile 32 KiB, the accumulators 64 KiB):
//   L1   qMat 0x00000   kMat[2] 0x08000 0x10000   vMat[2] 0x18000 0x20000
//        P ring's local slots 0x70000 0x78000 (the top of L1; TPOP points pMat at slot j % 2)
//   L0A  qLeft 0x0      pLeft 0x8000
//   L0B  kRight 0x0     vRight 0x8000
//   L0C  sAcc 0x0       oAcc 0x10000
//   Per score tile t (kb = t % 2): MTE2 loads kMat[kb] -> MTE1 moves it into kRight -> M computes
//   sAcc -> FIX pushes it. Per output tile j = t - PRELOAD (vb = j % 2, pb = j % 2): MTE2 loads
//   vMat[vb] and pops P(j) into its L1 slot -> MTE1 moves both into L0 -> M computes oAcc -> FIX
//   pushes it. Forward flags MTE2->MTE1 (ids kb, 2 + vb, 4 + pb), MTE1->M and M->FIX (id 0 for
//   the score, 1 for the output product); buffer-free flags MTE1->MTE2, M->MTE1 and FIX->M with
//   the same ids, set once before the loop and waited once after it.
//
// Vector core (HALF = 64 rows of its own; S half 32 KiB, P half 16 KiB, row statistics 256 B):
//   UB   S ring's local slots 0x00000 0x10000 (a ring's local slots are a whole slot apart; the
//        half each core loads leaves room between them for the O ring's slot at 0x08000)
//        o 0x18000   tmp 0x20000   p 0x28000   row statistics from 0x2C000, then the final
//        divides' two 2 KiB scratch tiles
//   The S ring has two local slots (the next tile's load overlaps this tile's softmax); p and
//   the O ring's slot are single: a second of either would not fit below 184 KiB at D = 128.
//   Per score tile t (cur = t % 2): MTE2 pops S(t) -> V: online softmax, P(t) into p -> MTE3
//   pushes p. Per output tile j: MTE2 pops O(j) -> V rescales o and adds it. Forward flags
//   MTE2->V (ids cur, 2), V->MTE3 (id 0, the final stores ids 1, 2); buffer-free flags V->MTE2 (S slot
//   cur, O slot 2) and MTE3->V (p, id 0). Vector ops on bytes an earlier vector op touched are
//   separated by pipe_barrier(PIPE_V), no other.
#include <pto/pto-inst.hpp>
#include <pto/common/fifo.hpp>
#include "acl/acl.h"

using namespace pto;

#ifdef __DAV_CUBE__
constexpr bool ON_CUBE = true;
#else
constexpr bool ON_CUBE = false;
#endif
#ifdef __DAV_VEC__
constexpr bool ON_VEC = true;
#else
constexpr bool ON_VEC = false;
#endif

// Key length and preload depth: override with -DFA_S1=... (a positive multiple of 128) and
// -DFA_PRELOAD=... (1 or more).
#ifndef FA_S1
#define FA_S1 1024
#endif
#ifndef FA_PRELOAD
#define FA_PRELOAD 2
#endif

// 1 / sqrt(D) for the head dimensions the sample takes.
template <int D>
constexpr float softmaxScale()
{
    static_assert(D == 32 || D == 64 || D == 128, "the head dimension is 32, 64 or 128");
    return D == 32 ? 0.17677669529663687f : D == 64 ? 0.125f : 0.08838834764831845f;
}

template <int S0, int D, int S1, int TILE, int PRELOAD>
__global__ AICORE void FlashAttentionKernel(__gm__ float *out, __gm__ half *q, __gm__ half *kT, __gm__ half *v,
                                            __gm__ float *sRing, __gm__ half *pRing, __gm__ float *oRing)
{
    static_assert(S1 % TILE == 0 && S1 >= TILE, "the key length is a positive multiple of the tile");
    static_assert(PRELOAD >= 1, "the cube core computes at least one score tile ahead");
    constexpr int TILES = S1 / TILE;
    constexpr int HALF = S0 / 2;
    constexpr uint32_t SLOTS = 4;
    constexpr uint32_t S_SLOT = S0 * TILE * sizeof(float);
    constexpr uint32_t P_SLOT = S0 * TILE * sizeof(half);
    constexpr uint32_t O_SLOT = S0 * D * sizeof(float);
    // UB and L1 addresses, in the maps' order.
    constexpr uint32_t UB_S = 0;
    constexpr uint32_t UB_O_RING = HALF * TILE * sizeof(float);
    constexpr uint32_t UB_O = UB_S + S_SLOT + HALF * TILE * sizeof(float); // after S slot 1
    constexpr uint32_t UB_TMP = UB_O + HALF * D * sizeof(float);
    constexpr uint32_t UB_P = UB_TMP + HALF * TILE * sizeof(float);
    constexpr uint32_t UB_ROWS = UB_P + HALF * TILE * sizeof(half);
    constexpr uint32_t ROW_BYTES = HALF * sizeof(float);
    static_assert(UB_O_RING + HALF * D * sizeof(float) <= S_SLOT, "the O slot fits between the S slots");
    constexpr uint32_t UB_SCRATCH = UB_ROWS + (5 + PRELOAD + 1) * ROW_BYTES; // two 2 KiB broadcast scratch tiles
    static_assert(UB_SCRATCH + 2 * 0x800 <= 0x2E000, "UB tiles must stay below 184 KiB");
    constexpr uint32_t L1_K = S0 * D * sizeof(half);
    constexpr uint32_t L1_V = L1_K + 2 * D * TILE * sizeof(half);
    constexpr uint32_t L1_P = 512 * 1024 - 2 * P_SLOT; // the P ring's local slots: the top of L1
    static_assert(L1_V + 2 * TILE * D * sizeof(half) <= L1_P, "L1 tiles must fit below the P ring's slots");

    using SPipe = TPipe<0, Direction::DIR_C2V, S_SLOT, SLOTS>;
    using PPipe = TPipe<2, Direction::DIR_V2C, P_SLOT, SLOTS>;
    using OPipe = TPipe<4, Direction::DIR_C2V, O_SLOT, SLOTS, 1>;
    const int block = get_block_idx();
    SPipe sPipe((__gm__ void *)(sRing + block * SLOTS * S0 * TILE), UB_S, 0x0);
    PPipe pPipe((__gm__ void *)(pRing + block * SLOTS * S0 * TILE), 0x0, L1_P);
    OPipe oPipe((__gm__ void *)(oRing + block * SLOTS * S0 * D), UB_O_RING, 0x0);

    if constexpr (ON_CUBE) {
        using QMat = Tile<TileType::Mat, half, S0, D, BLayout::ColMajor, S0, D, SLayout::RowMajor>;
        using KMat = Tile<TileType::Mat, half, D, TILE, BLayout::ColMajor, D, TILE, SLayout::RowMajor>;
        using VMat = Tile<TileType::Mat, half, TILE, D, BLayout::ColMajor, TILE, D, SLayout::RowMajor>;
        using PMat = Tile<TileType::Mat, half, S0, TILE, BLayout::ColMajor, S0, TILE, SLayout::RowMajor>;
        using GmQ = GlobalTensor<half, Shape<1, 1, 1, S0, D>, Stride<1, 1, 1, D, 1>>;
        using GmK = GlobalTensor<half, Shape<1, 1, 1, D, TILE>, Stride<1, 1, 1, S1, 1>>;
        using GmV = GlobalTensor<half, Shape<1, 1, 1, TILE, D>, Stride<1, 1, 1, D, 1>>;
        QMat qMat;
        KMat kMat[2];
        VMat vMat[2];
        PMat pMat;
        TileLeft<half, S0, D> qLeft;
        TileLeft<half, S0, TILE> pLeft;
        TileRight<half, D, TILE> kRight;
        TileRight<half, TILE, D> vRight;
        TileAcc<float, S0, TILE> sAcc;
        TileAcc<float, S0, D> oAcc;
        TASSIGN(qMat, 0x0);
        TASSIGN(kMat[0], L1_K);
        TASSIGN(kMat[1], L1_K + D * TILE * sizeof(half));
        TASSIGN(vMat[0], L1_V);
        TASSIGN(vMat[1], L1_V + TILE * D * sizeof(half));
        TASSIGN(qLeft, 0x0);
        TASSIGN(pLeft, S0 * D * sizeof(half));
        TASSIGN(kRight, 0x0);
        TASSIGN(vRight, D * TILE * sizeof(half));
        TASSIGN(sAcc, 0x0);
        TASSIGN(oAcc, S0 * TILE * sizeof(float));

        GmQ gQ(q + block * S0 * D);
        TLOAD(qMat, gQ);
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID6);
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID6);
        TMOV(qLeft, qMat);

        // Every buffer starts out free.
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID4);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID5);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);

        for (int t = 0; t < TILES + PRELOAD; ++t) {
            if (t < TILES) {
                const int kb = t % 2;
                GmK gK(kT + t * TILE);
                wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)kb); // kMat[kb] moved out two tiles ago
                TLOAD(kMat[kb], gK);
                set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)kb);
                wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)kb);
                wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0); // the last score product read kRight
                TMOV(kRight, kMat[kb]);
                set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)kb);
                set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
                wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
                wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0); // the last score tile left sAcc
                TMATMUL(sAcc, qLeft, kRight);
                set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
                set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
                wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
                TPUSH<SPipe, TileAcc<float, S0, TILE>, TileSplitAxis::TILE_UP_DOWN>(sPipe, sAcc);
                set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
            }
            if (t >= PRELOAD) {
                const int j = t - PRELOAD;
                const int vb = j % 2;
                GmV gV(v + j * TILE * D);
                wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(2 + vb)); // vMat[vb] moved out two tiles ago
                TLOAD(vMat[vb], gV);
                set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(2 + vb));
                wait_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(4 + vb)); // P ring's local slot j % 2 moved out
                TPOP<PPipe, PMat, TileSplitAxis::TILE_UP_DOWN>(pPipe, pMat);
                set_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(4 + vb));
                wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(2 + vb));
                wait_flag(PIPE_MTE2, PIPE_MTE1, (event_t)(4 + vb));
                wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1); // the last output product read pLeft, vRight
                TMOV(pLeft, pMat);
                TMOV(vRight, vMat[vb]);
                set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(2 + vb));
                set_flag(PIPE_MTE1, PIPE_MTE2, (event_t)(4 + vb));
                set_flag(PIPE_MTE1, PIPE_M, EVENT_ID1);
                wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID1);
                wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1); // the last output tile left oAcc
                TMATMUL(oAcc, pLeft, vRight);
                set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
                set_flag(PIPE_M, PIPE_FIX, EVENT_ID1);
                wait_flag(PIPE_M, PIPE_FIX, EVENT_ID1);
                TPUSH<OPipe, TileAcc<float, S0, D>, TileSplitAxis::TILE_UP_DOWN>(oPipe, oAcc);
                set_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
            }
        }

        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID2);
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID3);
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID4);
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID5);
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID1);
    }

    if constexpr (ON_VEC) {
        using SHalf = Tile<TileType::Vec, float, HALF, TILE, BLayout::RowMajor, HALF, TILE>;
        using PHalf = Tile<TileType::Vec, half, HALF, TILE, BLayout::RowMajor, HALF, TILE>;
        using OHalf = Tile<TileType::Vec, float, HALF, D, BLayout::RowMajor, HALF, D>;
        using RowT = Tile<TileType::Vec, float, HALF, 1, BLayout::ColMajor, HALF, 1>; // one value per row
        using OCols = Tile<TileType::Vec, float, HALF, D, BLayout::RowMajor, HALF, D / 2>; // a column half of o
        using Scratch = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, 8, 64>; // a row broadcast's own
        using GmOut = GlobalTensor<float, Shape<1, 1, 1, HALF, D / 2>, Stride<1, 1, 1, D, 1>>;
        SHalf s;
        OHalf oPart;
        OHalf o;
        SHalf tmp;
        PHalf p;
        RowT runMax[2]; // the running row maximum before and after score tile t, by t % 2
        RowT runSum;
        RowT curMax;
        RowT curSum;
        RowT alpha[PRELOAD + 1]; // exp(old max - new max) of tile t, kept until O(t) arrives
        Scratch tmpLeft;
        Scratch tmpRight;
        TASSIGN(o, UB_O);
        TASSIGN(tmp, UB_TMP);
        TASSIGN(p, UB_P);
        TASSIGN(runMax[0], UB_ROWS);
        TASSIGN(runMax[1], UB_ROWS + ROW_BYTES);
        TASSIGN(runSum, UB_ROWS + 2 * ROW_BYTES);
        TASSIGN(curMax, UB_ROWS + 3 * ROW_BYTES);
        TASSIGN(curSum, UB_ROWS + 4 * ROW_BYTES);
        for (int i = 0; i <= PRELOAD; ++i) {
            TASSIGN(alpha[i], UB_ROWS + (5 + i) * ROW_BYTES);
        }
        TASSIGN(tmpLeft, UB_SCRATCH);
        TASSIGN(tmpRight, UB_SCRATCH + 0x800);
        GmOut gOutLeft(out + (block * S0 + get_subblockid() * HALF) * D);
        GmOut gOutRight(out + (block * S0 + get_subblockid() * HALF) * D + D / 2);

        // The state before the first tile: max -inf (a large negative), sum 0, output 0.
        TEXPANDS(runMax[1], -1.0e30f);
        TEXPANDS(runSum, 0.0f);
        TEXPANDS(o, 0.0f);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);

        for (int t = 0; t < TILES + PRELOAD; ++t) {
            if (t < TILES) {
                const int cur = t % 2;
                const int prev = 1 - cur;
                const int a = t % (PRELOAD + 1);
                wait_flag(PIPE_V, PIPE_MTE2, (event_t)cur); // S ring's local slot t % 2 read two tiles ago
                TPOP<SPipe, SHalf, TileSplitAxis::TILE_UP_DOWN>(sPipe, s);
                set_flag(PIPE_MTE2, PIPE_V, (event_t)cur);
                wait_flag(PIPE_MTE2, PIPE_V, (event_t)cur);
                TMULS(s, s, softmaxScale<D>());
                pipe_barrier(PIPE_V);
                TROWMAX(curMax, s, tmp);
                pipe_barrier(PIPE_V);
                TMAX(runMax[cur], runMax[prev], curMax);
                pipe_barrier(PIPE_V);
                TSUB(alpha[a], runMax[prev], runMax[cur]);
                TROWEXPANDSUB(s, s, runMax[cur]);
                pipe_barrier(PIPE_V);
                TEXP(alpha[a], alpha[a]);
                TEXP(s, s);
                pipe_barrier(PIPE_V);
                TROWSUM(curSum, s, tmp);
                TMUL(runSum, runSum, alpha[a]);
                wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0); // the last push read p
                TCVT(p, s, RoundMode::CAST_RINT);
                set_flag(PIPE_V, PIPE_MTE2, (event_t)cur);
                set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
                wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
                TPUSH<PPipe, PHalf, TileSplitAxis::TILE_UP_DOWN>(pPipe, p);
                set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
                pipe_barrier(PIPE_V);
                TADD(runSum, runSum, curSum);
            }
            if (t >= PRELOAD) {
                const int j = t - PRELOAD;
                wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2); // O ring's local slot read by the last tile
                TPOP<OPipe, OHalf, TileSplitAxis::TILE_UP_DOWN>(oPipe, oPart);
                set_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
                if (t >= TILES) {
                    pipe_barrier(PIPE_V); // o written by the last tile's TADD (no score tile in between)
                }
                TROWEXPANDMUL(o, o, alpha[j % (PRELOAD + 1)]);
                wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID2);
                pipe_barrier(PIPE_V);
                TADD(o, o, oPart);
                set_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
            }
        }

        // Final normalisation: every row divided by its sum, one column half at a time so that MTE3
        // stores the left half while V divides the right one. Each divide works in its own scratch
        // tile, so nothing orders the two divides against each other.
        OCols oLeft;
        OCols oRight;
        TSUBVIEW(oLeft, o, 0, 0);
        TSUBVIEW(oRight, o, 0, D / 2);
        pipe_barrier(PIPE_V); // o written by the last tile's TADD
        TROWEXPANDDIV(oLeft, oLeft, runSum, tmpLeft);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
        TROWEXPANDDIV(oRight, oRight, runSum, tmpRight);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
        TSTORE(gOutLeft, oLeft);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
        TSTORE(gOutRight, oRight);

        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID2);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    }
}

// Host side: one cluster per block of S0 query rows; each block has its own three rings.
template <int S0, int D, int S1, int TILE, int PRELOAD>
void LaunchFlashAttention(float *out, aclFloat16 *q, aclFloat16 *kT, aclFloat16 *v, float *sRing,
                          aclFloat16 *pRing, float *oRing, uint32_t blocks, aclrtStream stream)
{
    FlashAttentionKernel<S0, D, S1, TILE, PRELOAD><<<blocks, nullptr, stream>>>(
        out, (half *)q, (half *)kT, (half *)v, sRing, (half *)pRing, oRing);
}

template void LaunchFlashAttention<128, 128, FA_S1, 128, FA_PRELOAD>(float *out, aclFloat16 *q, aclFloat16 *kT,
                                                                     aclFloat16 *v, float *sRing,
                                                                     aclFloat16 *pRing, float *oRing,
                                                                     uint32_t blocks, aclrtStream stream);
template void LaunchFlashAttention<32, 32, 256, 64, 1>(float *out, aclFloat16 *q, aclFloat16 *kT, aclFloat16 *v,
                                                       float *sRing, aclFloat16 *pRing, float *oRing,
                                                       uint32_t blocks, aclrtStream stream);
