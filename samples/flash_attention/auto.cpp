// flash_attention (AUTO mode): one query block of attention, out = softmax(Q K^T / sqrt(D)) V, on
// a cluster of one cube core and two vector cores (a2a3).
//
// The cube core computes the scores S = Q K^T one key tile (TILE columns) at a time and the
// partial outputs O(j) = P(j) V(j); each vector core owns half of the query rows and keeps the
// online softmax of its rows: the running row maximum and row sum, P(t) = exp(S(t) - max), the
// factor exp(old max - new max) that rescales the output accumulated so far, and at the end the
// row-broadcast division by the row sums. Tiles travel between the cores through three TPipe rings
// in GM (ffts flags): S (cube -> vector), P (vector -> cube) and O (cube -> vector), each split
// into the two vector cores' row halves. The cube core runs PRELOAD score tiles ahead of the
// output products, so the vector core's softmax of tile t overlaps the cube core's work on tile
// t - PRELOAD.
//
// K is passed transposed (D x S1, row-major), so a key tile is a D x TILE block of it. The rings'
// local slots are the one placement the kernel names (the pipe's constructor takes them): the S
// and O rings' slots at the bottom of UB, the P ring's at the top of L1.
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
    // The rings' local slots, the one placement the pipes' constructors take: the S ring's two
    // slots at the bottom of UB (a whole slot apart, each vector core loading its half into the
    // first half of a slot), the O ring's slot between them, the P ring's two at the top of L1.
    constexpr uint32_t UB_S = 0;
    constexpr uint32_t UB_O_RING = HALF * TILE * sizeof(float);
    constexpr uint32_t L1_P = 512 * 1024 - 2 * P_SLOT;
    static_assert(UB_O_RING + HALF * D * sizeof(float) <= S_SLOT, "the O slot fits between the S slots");

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

        GmQ gQ(q + block * S0 * D);
        TLOAD(qMat, gQ);
        TMOV(qLeft, qMat);

        for (int t = 0; t < TILES + PRELOAD; ++t) {
            if (t < TILES) {
                const int kb = t % 2;
                GmK gK(kT + t * TILE);
                TLOAD(kMat[kb], gK);
                TMOV(kRight, kMat[kb]);
                TMATMUL(sAcc, qLeft, kRight);
                TPUSH<SPipe, TileAcc<float, S0, TILE>, TileSplitAxis::TILE_UP_DOWN>(sPipe, sAcc);
            }
            if (t >= PRELOAD) {
                const int j = t - PRELOAD;
                const int vb = j % 2;
                GmV gV(v + j * TILE * D);
                TLOAD(vMat[vb], gV);
                TPOP<PPipe, PMat, TileSplitAxis::TILE_UP_DOWN>(pPipe, pMat);
                TMOV(pLeft, pMat);
                TMOV(vRight, vMat[vb]);
                TMATMUL(oAcc, pLeft, vRight);
                TPUSH<OPipe, TileAcc<float, S0, D>, TileSplitAxis::TILE_UP_DOWN>(oPipe, oAcc);
            }
        }
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
        GmOut gOutLeft(out + (block * S0 + get_subblockid() * HALF) * D);
        GmOut gOutRight(out + (block * S0 + get_subblockid() * HALF) * D + D / 2);

        // The state before the first tile: max -inf (a large negative), sum 0, output 0.
        TEXPANDS(runMax[1], -1.0e30f);
        TEXPANDS(runSum, 0.0f);
        TEXPANDS(o, 0.0f);

        for (int t = 0; t < TILES + PRELOAD; ++t) {
            if (t < TILES) {
                const int cur = t % 2;
                const int prev = 1 - cur;
                const int a = t % (PRELOAD + 1);
                TPOP<SPipe, SHalf, TileSplitAxis::TILE_UP_DOWN>(sPipe, s);
                TMULS(s, s, softmaxScale<D>());
                TROWMAX(curMax, s, tmp);
                TMAX(runMax[cur], runMax[prev], curMax);
                TSUB(alpha[a], runMax[prev], runMax[cur]);
                TROWEXPANDSUB(s, s, runMax[cur]);
                TEXP(alpha[a], alpha[a]);
                TEXP(s, s);
                TROWSUM(curSum, s, tmp);
                TMUL(runSum, runSum, alpha[a]);
                TCVT(p, s, RoundMode::CAST_RINT);
                TPUSH<PPipe, PHalf, TileSplitAxis::TILE_UP_DOWN>(pPipe, p);
                TADD(runSum, runSum, curSum);
            }
            if (t >= PRELOAD) {
                const int j = t - PRELOAD;
                TPOP<OPipe, OHalf, TileSplitAxis::TILE_UP_DOWN>(oPipe, oPart);
                TROWEXPANDMUL(o, o, alpha[j % (PRELOAD + 1)]);
                TADD(o, o, oPart);
            }
        }

        // Final normalisation: every row divided by its sum, one column half at a time so that the
        // left half's store overlaps the right half's divide; each divide has its own scratch tile.
        OCols oLeft;
        OCols oRight;
        TSUBVIEW(oLeft, o, 0, 0);
        TSUBVIEW(oRight, o, 0, D / 2);
        TROWEXPANDDIV(oLeft, oLeft, runSum, tmpLeft);
        TROWEXPANDDIV(oRight, oRight, runSum, tmpRight);
        TSTORE(gOutLeft, oLeft);
        TSTORE(gOutRight, oRight);
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
