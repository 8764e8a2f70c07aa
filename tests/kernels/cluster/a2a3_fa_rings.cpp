// A small attention pipeline on an a2a3 cluster, shaped like a hand-written flash attention: the
// cube core computes the scores S(t) = Q K(t)^T of four 32-column blocks and hands them to the
// vector cores through a GM ring; each vector core takes its 16 rows, exponentiates them and hands
// P(t) back through a second ring; the cube core multiplies P(t) V(t) (in two accumulating steps)
// and hands the product through a third ring; the vector cores add the products up and store the sum.
// The three rings are used through GlobalTensors (TALLOC / TPUSH / TPOP / TFREE), inside helpers
// that take the slot by reference; the accumulators hand over to the fixpipe through their unit
// flags (AccPhase::Final / STPhase::Final) instead of M <-> FIX flags.
#include "cluster_preambles.hpp"
#include <pto/common/fifo.hpp>

constexpr int BLOCKS = 4;
constexpr int ROWS = 32;
constexpr int HALF_ROWS = ROWS / 2;

using QkPipe = TPipe<0, Direction::DIR_C2V, ROWS * ROWS * sizeof(float), 2>;
using PPipe = TPipe<2, Direction::DIR_V2C, ROWS * ROWS * sizeof(half), 2>;
using PvPipe = TPipe<4, Direction::DIR_C2V, ROWS * ROWS * sizeof(float), 2>;
static_assert(QkPipe::RingFiFo::SLOT_NUM == 2, "two slots per ring");

using AccSlot = GlobalTensor<float, Shape<1, 1, 1, ROWS, ROWS>, Stride<1, 1, 1, ROWS, 1>>;
using HalfSlot = GlobalTensor<half, Shape<1, 1, 1, ROWS, ROWS>, Stride<1, 1, 1, ROWS, 1>>;
using AccPart = GlobalTensor<float, Shape<1, 1, 1, HALF_ROWS, ROWS>, Stride<1, 1, 1, ROWS, 1>>;
using HalfPart = GlobalTensor<half, Shape<1, 1, 1, HALF_ROWS, ROWS>, Stride<1, 1, 1, ROWS, 1>>;

using ScoreT = Tile<TileType::Vec, float, HALF_ROWS, ROWS, BLayout::RowMajor, HALF_ROWS, ROWS>;

// Places a vector core's score tiles one after another from `base`.
template <typename T, int N>
AICORE inline uint32_t place_tiles(T (&tiles)[N], uint32_t base)
{
    for (int i = 0; i < N; i++) {
        TASSIGN(tiles[i], base + i * HALF_ROWS * ROWS * sizeof(float));
    }
    return base + N * HALF_ROWS * ROWS * sizeof(float);
}

// The cube core hands an accumulator to the vector cores: a slot, the store, the signal.
template <typename Pipe, typename Acc>
AICORE inline void hand_to_vectors(Pipe &pipe, AccSlot &slot, Acc &acc)
{
    TALLOC<Pipe, AccSlot, TileSplitAxis::TILE_UP_DOWN>(pipe, slot);
    TSTORE<STPhase::Final>(slot, acc);
    TPUSH<Pipe, AccSlot, TileSplitAxis::TILE_UP_DOWN>(pipe, slot);
}

// A vector core takes its half of the next slot of a cube-to-vector ring.
template <typename Pipe>
AICORE inline void take_half(Pipe &pipe, AccPart &part)
{
    TPOP<Pipe, AccPart, TileSplitAxis::TILE_UP_DOWN>(pipe, part);
}

extern "C" __global__ AICORE void fa_rings_a2a3(__gm__ float *o, __gm__ half *q, __gm__ half *k, __gm__ half *v,
                                                __gm__ float *qkRing, __gm__ half *pRing, __gm__ float *pvRing)
{
    ScoreT scores[2];
    place_tiles(scores, 0x0);
    QkPipe qkPipe(qkRing, (uint32_t)(uint64_t)scores[0].data(), 0x0);
    PPipe pPipe(pRing, 0x0, 0x0);
    PvPipe pvPipe(pvRing, 0x0, 0x0);
    if constexpr (ON_CUBE) {
        using MatT = Tile<TileType::Mat, half, ROWS, ROWS, BLayout::ColMajor, ROWS, ROWS, SLayout::RowMajor>;
        using GmBlock = GlobalTensor<half, Shape<1, 1, 1, ROWS, ROWS>, Stride<1, 1, 1, ROWS, 1>>;
        MatT qMat;
        MatT kMat;
        MatT pMat;
        MatT vMat;
        TileLeft<half, ROWS, ROWS> left;
        TileRight<half, ROWS, ROWS> right;
        TileAcc<float, ROWS, ROWS> sAcc;
        TileAcc<float, ROWS, ROWS> oAcc;
        TASSIGN(qMat, 0x0);
        TASSIGN(kMat, 0x800);
        TASSIGN(pMat, 0x1000);
        TASSIGN(vMat, 0x1800);
        TASSIGN(left, 0x0);
        TASSIGN(right, 0x0);
        TASSIGN(sAcc, 0x0);
        TASSIGN(oAcc, 0x1000);
        GmBlock gQ(q);
        TLOAD(qMat, gQ);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
        AccSlot sSlot;
        AccSlot oSlot;
        HalfSlot pSlot;
        for (int t = 0; t < BLOCKS; t++) {
            GmBlock gK(k + t * ROWS * ROWS);
            GmBlock gV(v + t * ROWS * ROWS);
            // S(t) = Q K(t)^T
            wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            TLOAD(kMat, gK);
            set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
            TMOV(left, qMat);
            TMOV(right, kMat);
            set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
            wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
            TMATMUL<AccPhase::Final>(sAcc, left, right);
            set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
            hand_to_vectors<QkPipe>(qkPipe, sSlot, sAcc);
            // O(t) = P(t) V(t)
            TPOP<PPipe, HalfSlot, TileSplitAxis::TILE_UP_DOWN>(pPipe, pSlot);
            wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
            TLOAD(pMat, pSlot);
            TLOAD(vMat, gV);
            TFREE<PPipe, HalfSlot, TileSplitAxis::TILE_UP_DOWN>(pPipe, pSlot);
            set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);
            wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);
            wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
            TMOV(left, pMat);
            TMOV(right, vMat);
            set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
            set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
            wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
            TMATMUL<AccPhase::Partial>(oAcc, left, right);
            TMATMUL_ACC<AccPhase::Final>(oAcc, left, right);
            set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
            hand_to_vectors<PvPipe>(pvPipe, oSlot, oAcc);
        }
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID1);
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);
    }
    if constexpr (ON_VEC) {
        using ProbT = Tile<TileType::Vec, half, HALF_ROWS, ROWS, BLayout::RowMajor, HALF_ROWS, ROWS>;
        ScoreT expS;
        ScoreT product;
        ScoreT sum;
        ProbT p;
        TASSIGN(expS, 0x4000);
        TASSIGN(product, 0x6000);
        TASSIGN(sum, 0x8000);
        TASSIGN(p, 0xA000);
        AccPart gOut(o + get_subblockid() * HALF_ROWS * ROWS);
        TEXPANDS(sum, 0.0f);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        AccPart sPart;
        AccPart oPart;
        HalfPart pPart;
        for (int t = 0; t < BLOCKS; t++) {
            // P(t) = exp(S(t)), this core's rows
            take_half<QkPipe>(qkPipe, sPart);
            wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
            TLOAD(scores[t % 2], sPart);
            TFREE<QkPipe, AccPart, TileSplitAxis::TILE_UP_DOWN>(qkPipe, sPart);
            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
            wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
            TEXP(expS, scores[t % 2]);
            pipe_barrier(PIPE_V);
            TCVT(p, expS, RoundMode::CAST_ROUND);
            set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
            set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            TALLOC<PPipe, HalfPart, TileSplitAxis::TILE_UP_DOWN>(pPipe, pPart);
            TSTORE(pPart, p);
            TPUSH<PPipe, HalfPart, TileSplitAxis::TILE_UP_DOWN>(pPipe, pPart);
            set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
            // sum += O(t), this core's rows
            take_half<PvPipe>(pvPipe, oPart);
            wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
            TLOAD(product, oPart);
            TFREE<PvPipe, AccPart, TileSplitAxis::TILE_UP_DOWN>(pvPipe, oPart);
            set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
            wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
            TADD(sum, sum, product);
            set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
        }
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
        TSTORE(gOut, sum);
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    }
}
