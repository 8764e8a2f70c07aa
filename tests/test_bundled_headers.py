"""The bundled parse-only pto headers parse realistic kernels cleanly with libclang.

Each snippet is written in the style of pto-isa's own kernels. A snippet must produce no
diagnostic of severity warning or above under every architecture profile it targets, and
every instruction ptorewrite knows about must be declared in namespace pto.
"""

from __future__ import annotations

import pytest

ci = pytest.importorskip("clang.cindex")

from ptorewrite.parse.arch_macros import ARCH_MACROS, INCLUDE_DIR, parse_args

# Every instruction the bundled headers declare (in namespace pto).
# fmt: off
DECLARED_INSTRUCTIONS = [
    "TASSIGN", "TSYNC", "SETFMATRIX", "SET_IMG2COL_RPT", "SET_IMG2COL_PADDING", "TSETTF32MODE",
    "TSETHF32MODE", "TPRINT",
    "TLOAD", "TPREFETCH", "TSTORE", "TSTORE_FP", "MGATHER", "MSCATTER",
    "TMOV", "TMOV_FP", "TEXTRACT", "TEXTRACT_FP", "TINSERT", "TINSERT_FP", "TIMG2COL",
    "TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS", "TMATMUL_MX", "TGEMV_MX",
    "TADD", "TSUB", "TMUL", "TDIV", "TMIN", "TMAX", "TAND", "TOR", "TXOR", "TSHL", "TSHR", "TREM", "TFMOD",
    "TPOW", "TPRELU", "TADDC", "TSUBC", "TCMP", "TSEL",
    "TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN", "TPARTARGMAX", "TPARTARGMIN",
    "TABS", "TNEG", "TNOT", "TRELU", "TEXP", "TLOG", "TSQRT", "TRSQRT", "TRECIP", "TCVT",
    "TADDS", "TSUBS", "TMULS", "TDIVS", "TMINS", "TMAXS", "TANDS", "TORS", "TXORS", "TSHLS", "TSHRS",
    "TREMS", "TFMODS", "TPOWS", "TLRELU", "TAXPY",
    "TADDSC", "TSUBSC", "TCMPS", "TSELS", "TEXPANDS",
    "TROWSUM", "TROWPROD", "TROWMAX", "TROWMIN", "TROWARGMAX", "TROWARGMIN",
    "TCOLSUM", "TCOLPROD", "TCOLMAX", "TCOLMIN", "TCOLARGMAX", "TCOLARGMIN",
    "TROWEXPAND", "TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL", "TROWEXPANDDIV", "TROWEXPANDMAX",
    "TROWEXPANDMIN",
    "TROWEXPANDEXPDIF", "TCOLEXPAND", "TCOLEXPANDADD", "TCOLEXPANDSUB", "TCOLEXPANDMUL", "TCOLEXPANDDIV",
    "TCOLEXPANDMAX",
    "TCOLEXPANDMIN", "TCOLEXPANDEXPDIF",
    "TTRANS", "TGATHER", "TGATHERB", "TSCATTER", "TSORT32", "TMRGSORT", "TCONCAT", "TFILLPAD",
    "TFILLPAD_INPLACE", "TFILLPAD_EXPAND",
    "TCI", "TTRI", "TDEQUANT", "TQUANT", "TGET_SCALE_ADDR", "THISTOGRAM", "TRANDOM",
    "TRESHAPE", "TSUBVIEW",
    "TPUSH", "TPOP", "TFREE", "TALLOC",
    "TADDRELUCONV", "TSUBRELUCONV", "TSUBRELU", "TFUSEDMULADD", "TFUSEDMULADDRELU", "TMULADDDST",
    "TPAIRREDUCESUM", "TADDDEQRELU", "TCONCAT_IMPL",
]
# fmt: on

VECTOR_ADD = r"""
#include <pto/pto-inst.hpp>
#include <pto/common/constants.hpp>
using namespace pto;

template <typename T, int TRows, int TCols>
AICORE void VecAdd(__gm__ T *out, __gm__ T *a, __gm__ T *b, uint32_t tiles)
{
#if defined(__DAV_C220_VEC__) || defined(__DAV_C310_VEC__)
    using TileT = Tile<TileType::Vec, T, TRows, TCols, BLayout::RowMajor, TRows, TCols>;
    using GShape = Shape<1, 1, 1, TRows, TCols>;
    using GStride = BaseShape2D<T, TRows, TCols, Layout::ND>;
    using GT = GlobalTensor<T, GShape, GStride, Layout::ND>;
    static_assert(TileT::Rows == TRows && TileT::ValidCol == TCols, "static members");
    static_assert(GT::staticStride[3] == TCols, "ND row stride");
    TileT ta, tb, tc;
    const int64_t base = get_block_idx() * tiles;
    for (uint32_t i = 0; i < tiles; ++i) {
        GT ga(a + (base + i) * TRows * TCols);
        GT gb(b + (base + i) * TRows * TCols);
        GT go(out + (base + i) * TRows * TCols);
        TLOAD(ta, ga);
        TLOAD(tb, gb);
        TADD(tc, ta, tb);
        TRELU(tc, tc);
        TMULS(tc, tc, (T)0.5f);
        TSTORE(go, tc);
    }
#endif
}

extern "C" __global__ AICORE void vadd_f32(__gm__ uint8_t *out, __gm__ uint8_t *a, __gm__ uint8_t *b)
{
    VecAdd<float, 16, 64>((__gm__ float *)out, (__gm__ float *)a, (__gm__ float *)b, 4);
}

extern "C" __global__ AICORE void vadd_f16(GM_ADDR out, GM_ADDR a, GM_ADDR b)
{
    VecAdd<half, 16, 128>((__gm__ half *)out, (__gm__ half *)a, (__gm__ half *)b, 4);
}
"""

CUBE_GEMM = r"""
#include <pto/pto-inst.hpp>
#include <pto/common/constants.hpp>
using namespace pto;

constexpr uint32_t BUFFER_NUM = 2;

template <typename T, typename U, int m, int k, int n, uint32_t baseM, uint32_t baseK, uint32_t baseN,
          uint32_t stepKa>
AICORE inline void RunGemm(__gm__ T *out, __gm__ U *src0, __gm__ U *src1)
{
    using TileMatA = Tile<TileType::Mat, U, baseM, baseK * stepKa, BLayout::ColMajor, baseM, baseK * stepKa,
                          SLayout::RowMajor>;
    using TileMatB = Tile<TileType::Mat, U, baseK * stepKa, baseN, BLayout::RowMajor, baseK * stepKa, baseN,
                          SLayout::ColMajor>;
    using LeftTile = TileLeft<U, baseM, baseK, baseM, baseK>;
    using RightTile = TileRight<U, baseK, baseN, baseK, baseN>;
    using ResTile = TileAcc<T, baseM, baseN, baseM, baseN>;
    using GA = GlobalTensor<U, TileShape2D<U, baseM, baseK * stepKa, Layout::ND>, BaseShape2D<U, m, k, Layout::ND>,
                            Layout::ND>;
    using GB = GlobalTensor<U, TileShape2D<U, baseK * stepKa, baseN, Layout::DN>, BaseShape2D<U, k, n, Layout::DN>,
                            Layout::DN>;
    using GC = GlobalTensor<T, TileShape2D<T, baseM, baseN, Layout::ND>, BaseShape2D<T, m, n, Layout::ND>,
                            Layout::ND>;

    TileMatA aMatTile;
    TileMatB bMatTile;
    LeftTile aTile[BUFFER_NUM];
    RightTile bTile[BUFFER_NUM];
    ResTile cTile;
    constexpr uint32_t kLoop = k / baseK;
    for (uint32_t kIter = 0; kIter < kLoop; ++kIter) {
        const uint32_t kMod = kIter % stepKa;
        const uint32_t buf = kIter % BUFFER_NUM;
        if (kMod == 0) {
            GA gmA(src0 + kIter * baseK);
            GB gmB(src1 + kIter * baseK);
            TLOAD(aMatTile, gmA);
            TLOAD(bMatTile, gmB);
        }
        TEXTRACT(aTile[buf], aMatTile, 0, kMod * baseK);
        TEXTRACT(bTile[buf], bMatTile, kMod * baseK, 0);
        if (kIter == 0) {
            TMATMUL<AccPhase::Partial>(cTile, aTile[buf], bTile[buf]);
        } else if (kIter == kLoop - 1) {
            TMATMUL_ACC<AccPhase::Final>(cTile, cTile, aTile[buf], bTile[buf]);
        } else {
            TMATMUL_ACC(cTile, cTile, aTile[buf], bTile[buf]);
        }
    }
    GC gC(out);
    TSTORE<STPhase::Final>(gC, cTile);
    TSTORE<ResTile, GC, AtomicType::AtomicAdd>(gC, cTile);
}

extern "C" __global__ AICORE void gemm(__gm__ uint8_t *out, __gm__ uint8_t *a, __gm__ uint8_t *b)
{
#if defined(__DAV_CUBE__)
    RunGemm<float, half, 256, 512, 256, 128, 64, 256, 4>(reinterpret_cast<__gm__ float *>(out),
                                                         reinterpret_cast<__gm__ half *>(a),
                                                         reinterpret_cast<__gm__ half *>(b));
#endif
}
"""

MULTI_BUFFERED = r"""
#include <pto/common/constants.hpp>
#include <pto/pto-inst.hpp>
#include "multiBuffer.hpp"
using namespace pto;
using namespace pto_auto;

constexpr int kNumBuffers = 2;
constexpr int R = 32, C = 128;
using TileT = Tile<TileType::Vec, float, R, C, BLayout::RowMajor, DYNAMIC, C>;
using TileRow = Tile<TileType::Vec, float, R, 8, BLayout::RowMajor, DYNAMIC, 1>;
using GShape = Shape<1, 1, 1, DYNAMIC, C>;
using GT = GlobalTensor<float, GShape, Stride<1, 1, 1, C, 1>>;

extern "C" __global__ AICORE void rownorm(__gm__ float *out, __gm__ float *in, uint32_t rows)
{
    MultiBuffered<kNumBuffers> db;
    db.loop<Range<8>>([&](auto ctx) {
        const int i = ctx.iter;
        constexpr int lane = decltype(ctx)::bufferId;
        static_assert(lane >= 0 && lane < kNumBuffers, "lane is a compile-time buffer id");
        TileT x(rows);
        TileT y(rows);
        TileT tmp(rows);
        TileRow sum(rows);
        GT gin(in + i * R * C, GShape(rows));
        GT gout(out + i * R * C, GShape(rows));
        TLOAD(x, gin);
        TMUL(y, x, x);
        TROWSUM(sum, y, tmp);
        TROWEXPANDDIV(y, x, sum);
        TSTORE(gout, y);
    });

    // Nested range: the body also receives the inner loop.
    TileT acc(rows);
    db.loop<Range<4, 2>, 1, 1>([&](auto outer, auto &inner) {
        TileT a(rows);
        GT g(in + outer.iter * R * C, GShape(rows));
        TLOAD(a, g);
        inner.loop([&](auto ctx) {
            if (ctx.phase == Phase::Main && ctx.bufferId == 0) {
                TADD(acc, acc, a);
            }
        });
    });

    MultiStaged<2> stages;
    stages.run([&] { TEXPANDS(acc, 0.0f); }, [&] { TADDS(acc, acc, 1.0f); });
}
"""

MANUAL = r"""
#include <pto/pto-inst.hpp>
using namespace pto;

constexpr int R = 16, C = 64;
using TileF = Tile<TileType::Vec, float, R, C, BLayout::RowMajor, R, C>;
using TileH = Tile<TileType::Vec, half, R, C, BLayout::RowMajor, R, C>;
using TileCol = Tile<TileType::Vec, float, R, 8, BLayout::RowMajor, R, 1>;
using TileHalf = Tile<TileType::Vec, float, R / 2, C, BLayout::RowMajor, R / 2, C>;
using TileFlat = Tile<TileType::Vec, float, 1, R * C, BLayout::RowMajor, 1, R * C>;
using GT = GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>>;

template <pipe_t srcPipe, pipe_t dstPipe>
AICORE inline void SetFlag(uint32_t id) { set_flag(srcPipe, dstPipe, static_cast<event_t>(id)); }
template <pipe_t srcPipe, pipe_t dstPipe>
AICORE inline void WaitFlag(uint32_t id) { wait_flag(srcPipe, dstPipe, static_cast<event_t>(id)); }

extern "C" __global__ AICORE void softmax_manual(GM_ADDR out, GM_ADDR in)
{
    __gm__ float *src = (__gm__ float *)in;
    __gm__ float *dst = (__gm__ float *)out;
    TileF x[2], y[2];
    TileCol rowMax, rowSum;
    TileF tmp;
    TileH yh;
    TileHalf top;
    TileFlat flat;
    TASSIGN(x[0], 0x0);
    TASSIGN(x[1], 0x1000);
    TASSIGN(y[0], 0x2000);
    TASSIGN(y[1], 0x3000);
    TASSIGN<0x4000>(rowMax);
    TASSIGN<0x4200>(rowSum);
    TASSIGN(tmp, 0x5000);
    TASSIGN(yh, 0x6000);
    TSUBVIEW(top, x[0], 8, 0);
    TRESHAPE(flat, y[1]);
    const int64_t core = get_block_idx();
    for (int slot = 0; slot < 2; ++slot) {
        set_flag(PIPE_V, PIPE_MTE2, (event_t)slot);
        set_flag(PIPE_MTE3, PIPE_V, (event_t)slot);
    }
    for (uint32_t i = 0; i < 8; ++i) {
        const int s = i % 2;
        GT gin(src + (core * 8 + i) * R * C);
        GT gout(dst + (core * 8 + i) * R * C);
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)s);
        TLOAD(x[s], gin);
        set_flag(PIPE_MTE2, PIPE_V, (event_t)s);
        wait_flag(PIPE_MTE2, PIPE_V, (event_t)s);
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)s);
        TROWMAX(rowMax, x[s], tmp);
        pipe_barrier(PIPE_V);
        TROWEXPANDSUB(y[s], x[s], rowMax);
        pipe_barrier(PIPE_V);
        TEXP(y[s], y[s]);
        pipe_barrier(PIPE_V);
        TROWSUM(rowSum, y[s], tmp);
        pipe_barrier(PIPE_V);
        TROWEXPANDDIV(y[s], y[s], rowSum);
        TCVT(yh, y[s], RoundMode::CAST_RINT);
        set_flag(PIPE_V, PIPE_MTE2, (event_t)s);
        SetFlag<PIPE_V, PIPE_MTE3>(s);
        WaitFlag<PIPE_V, PIPE_MTE3>(s);
        TSTORE(gout, y[s]);
        set_flag(PIPE_MTE3, PIPE_V, (event_t)s);
    }
    for (int slot = 0; slot < 2; ++slot) {
        wait_flag(PIPE_V, PIPE_MTE2, (event_t)slot);
        wait_flag(PIPE_MTE3, PIPE_V, (event_t)slot);
    }
    Event<Op::TLOAD, Op::TADD> e0;
    Event<Op::TADD, Op::TSTORE_VEC> e1;
    GT g0(src);
    e0 = TLOAD(x[0], g0);
    e1 = TADD(y[0], x[0], x[1], e0);
    TSTORE(g0, y[0], e1);
    PtoSetWaitFlag<PIPE_V, PIPE_S>();
    pipe_barrier(PIPE_ALL);
}
"""

# One call of (nearly) every vector instruction form, so a broken declaration or an
# ambiguous overload set shows up as a diagnostic.
VECTOR_ALL_FORMS = r"""
#include <pto/pto-inst.hpp>
using namespace pto;

using TF = Tile<TileType::Vec, float, 16, 64>;
using TI = Tile<TileType::Vec, int32_t, 16, 64>;
using TU8 = Tile<TileType::Vec, uint8_t, 16, 64>;
using TH = Tile<TileType::Vec, half, 16, 64>;
using TB = Tile<TileType::Vec, bfloat16_t, 16, 64>;
using TCol = Tile<TileType::Vec, float, 16, 8, BLayout::RowMajor, 16, 1>;
using TRowV = Tile<TileType::Vec, float, 1, 64>;
using TMat = Tile<TileType::Mat, half, 64, 64, BLayout::ColMajor, 64, 64, SLayout::RowMajor>;
using GT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;

extern "C" __global__ AICORE void all_forms(__gm__ float *g, float s)
{
    TF d, a, b, tmp;
    TI di, ai, bi, idx;
    TU8 mask;
    TH h;
    TB bf;
    TCol col, colIdx;
    TRowV row;
    TMat mat;
    GT gt(g);
    MrgSortExecutedNumList executed;

    TLOAD(a, gt); TPREFETCH(a, gt); TSTORE(gt, d);
    TADD(d, a, b); TSUB(d, a, b); TMUL(d, a, b); TDIV(d, a, b); TDIV<DivAlgorithm::HIGH_PRECISION>(d, a, b);
    TMIN(d, a, b); TMAX(d, a, b); TAND(di, ai, bi); TOR(di, ai, bi); TXOR(di, ai, bi, tmp);
    TSHL(di, ai, bi); TSHR(di, ai, bi); TREM(d, a, b, tmp); TFMOD(d, a, b); TPOW(d, a, b, tmp);
    TPRELU(d, a, b, tmp); TADDC(d, a, b, tmp); TSUBC(d, a, b, tmp);
    TCMP(mask, a, b, CmpMode::LT); TSEL(d, mask, a, b, tmp);
    TPARTADD(d, a, b); TPARTMUL(d, a, b); TPARTMAX(d, a, b); TPARTMIN(d, a, b);
    TPARTARGMAX(d, a, b, di, ai, bi); TPARTARGMIN(d, a, b, di, ai, bi);
    TABS(d, a); TNEG(d, a); TNOT(di, ai); TRELU(d, a); TEXP(d, a); TLOG(d, a); TSQRT(d, a);
    TRSQRT(d, a); TRSQRT(d, a, tmp); TRECIP(d, a);
    TCVT(h, a, RoundMode::CAST_ROUND); TCVT(bf, a, RoundMode::CAST_RINT, SaturationMode::OFF);
    TCVT(di, a, tmp, RoundMode::CAST_TRUNC); TCVT(di, a, tmp, RoundMode::CAST_FLOOR, SaturationMode::ON);
    TADDS(d, a, s); TSUBS(d, a, 1.0f); TMULS(d, a, 2.0f); TDIVS(d, a, 3.0f); TDIVS(d, 1.0f, a);
    TMINS(d, a, s); TMAXS(d, a, s); TANDS(di, ai, 1); TORS(di, ai, 2); TXORS(di, ai, 3, tmp);
    TSHLS(di, ai, 1); TSHRS(di, ai, 1); TREMS(d, a, s, tmp); TFMODS(d, a, s); TPOWS(d, a, 2.0f, tmp);
    TLRELU(d, a, 0.1f); TAXPY(d, a, s); TADDSC(d, a, s, b); TSUBSC(d, a, s, b);
    TCMPS(mask, a, s, CmpMode::GE); TCMPS(mask, a, b, CmpMode::EQ); TSELS(d, mask, a, tmp, s);
    TEXPANDS(d, 0.0f); TEXPANDS(h, 1.0f); TEXPANDS(mat, 0.0f);
    TROWSUM(col, a, tmp); TROWPROD(col, a, tmp); TROWMAX(col, a, tmp); TROWMIN(col, a, tmp);
    TROWARGMAX(colIdx, a, tmp); TROWARGMAX(col, colIdx, a, tmp); TROWARGMIN(colIdx, a, tmp);
    TROWARGMIN(col, colIdx, a, tmp);
    TCOLSUM(row, a); TCOLSUM(row, a, tmp, true); TCOLPROD(row, a); TCOLMAX(row, a); TCOLMIN(row, a);
    TCOLARGMAX(row, a, tmp); TCOLARGMIN(row, a, tmp);
    TROWEXPAND(d, col); TROWEXPANDADD(d, a, col); TROWEXPANDSUB(d, a, col); TROWEXPANDMUL(d, a, col);
    TROWEXPANDDIV(d, a, col); TROWEXPANDMAX(d, a, col); TROWEXPANDMIN(d, a, col); TROWEXPANDEXPDIF(d, a, col);
    TROWEXPANDADD(d, a, col, tmp); TROWEXPANDMUL(d, a, col, tmp); TROWEXPANDDIV(d, a, col, tmp);
    TCOLEXPAND(d, row); TCOLEXPANDADD(d, a, row); TCOLEXPANDSUB(d, a, row); TCOLEXPANDMUL(d, a, row);
    TCOLEXPANDDIV(d, a, row); TCOLEXPANDMAX(d, a, row); TCOLEXPANDMIN(d, a, row); TCOLEXPANDEXPDIF(d, a, row);
    TTRANS(d, a, tmp); TGATHER(d, a, idx, tmp); TGATHER<TF, TF, MaskPattern::P0101>(d, a); TGATHERB(d, a, idx);
    TSCATTER(d, a, idx); TSORT32(d, a, idx); TSORT32(d, a, idx, tmp);
    TMRGSORT(d, a, 64u);
    TMRGSORT<TF, TF, TF, TF, false>(d, executed, tmp, a, b);
    TCONCAT(d, a, b); TCONCAT(d, a, b, ai, bi);
    TFILLPAD(d, a); TFILLPAD(mat, mat); TFILLPAD_INPLACE(d, a); TFILLPAD_EXPAND(d, a);
    TCI<TI, int32_t, 0>(di, 0); TTRI<TF, 1>(d, 0);
    TMOV(d, a); TMOV(d, a, tmp); TEXTRACT(d, a, 0, 0); TINSERT(d, a, 0, 0);
    TRESHAPE(di, a); TSUBVIEW(row, a, 1, 0);
    TSYNC<Op::TADD>();
}
"""

# Names pto-isa's single-instruction tests use beyond the instruction calls themselves.
TEST_KERNEL_NAMES = r"""
#include <pto/pto-inst.hpp>
using namespace pto;

template <typename T>
AICORE void Names(__gm__ T *out)
{
    using V = Tile<TileType::Vec, T, 16, 64>;
    using I = Tile<TileType::Vec, int32_t, 16, 64>;
    V a, b, c, tmp;
    I idx;
    TCOLARGMAX(a, idx, b, tmp);
    TCOLARGMIN(a, idx, b, tmp);
    TGATHER<V, V, MaskPattern::P0101, GatherAxis::GATHER_COL>(a, b);
    TSCATTER<MaskPattern::P1010, ScatterAxis::SCATTER_COL>(a, b);
    TCONCAT_IMPL(c, a, b);
    TFUSEDMULADD(c, a, b);
    TADDDEQRELU(c, a, b, 0.5f, tmp);
    Event<Op::TADD, Op::TSTORE_VEC> e = TADD(c, a, b);
    e.Wait();
    PtoSetWaitFlag<PIPE_V, PIPE_MTE3>();
    MrgSortExecutedNumList executed;
    (void)executed;
    dsb(DSB_ALL);
    uint64_t mode = QuantMode_t::NoQuant + NoQuant;
    (void)mode;
    static_assert(TileSplitAxis::TILE_LEFT_RIGHT_ODD == 4, "fifo split");
    if constexpr (std::is_same_v<T, half>) {
        TADDS(a, a, (T)1);
    }
    using W = std::conditional_t<sizeof(T) == 4, float, half>;
    static_assert(std::is_same<W, float>::value, "traits");
    typedef __SIZE_TYPE__ size_type;
    constexpr size_type n = sizeof(T);
    (void)n;
}

extern "C" __global__ AICORE void names(__gm__ float *out)
{
    Names<float>(out);
}
"""

# 16-bit floats hold their real IEEE bits in constant expressions: kernels check custom pad
# encodings at compile time.
FLOAT16_ENCODINGS = """
#include <pto/pto-inst.hpp>
using namespace pto;

static_assert(getCustomPadBits(PadValueCustom((half)-1.0)) == 0xBC00u, "fp16 -1");
static_assert(getCustomPadBits(PadValueCustom((bfloat16_t)-1.0)) == 0xBF80u, "bf16 -1");
static_assert(PadValueCustom(half(0.5f)) == static_cast<PadValue>(0x100003800ULL), "fp16 0.5");
static_assert(__builtin_bit_cast(uint16_t, half(65504.0f)) == 0x7BFFu, "largest fp16");
static_assert(__builtin_bit_cast(uint16_t, half(65520.0f)) == 0x7C00u, "rounds up to infinity");
static_assert(__builtin_bit_cast(uint16_t, half(1.0f + 1.0f / 2048)) == 0x3C00u, "a tie rounds to even");
static_assert(__builtin_bit_cast(uint16_t, half(5.960464477539063e-8f)) == 0x0001u, "smallest subnormal");
static_assert(__builtin_bit_cast(uint16_t, bfloat16_t(1.0f + 1.0f / 256)) == 0x3F80u, "bf16 tie to even");
static_assert(float(half(-2.5f)) == -2.5f && float(bfloat16_t(3.0f)) == 3.0f, "round trips");

extern "C" __global__ AICORE void encodings(__gm__ half *out)
{
    (void)out;
}
"""

# The a5 MX scale layouts of TileShape2D / BaseShape2D: a 128 x 4 scale matrix of each layout.
MX_SHAPES = """
#include <pto/pto-inst.hpp>
using namespace pto;

template <Layout L, int64_t s1, int64_t s2, int64_t s3, int64_t s4, int64_t t1, int64_t t2, int64_t t3>
constexpr bool mx_is()
{
    using S = TileShape2D<float8_e8m0_t, 128, 4, L>;
    using B = BaseShape2D<float8_e8m0_t, 128, 4, L>;
    return S::staticShape[0] == 1 && S::staticShape[1] == s1 && S::staticShape[2] == s2 && S::staticShape[3] == s3 &&
           S::staticShape[4] == s4 && B::staticStride[0] == 512 && B::staticStride[1] == t1 &&
           B::staticStride[2] == t2 && B::staticStride[3] == t3 && B::staticStride[4] == 1;
}
static_assert(mx_is<Layout::MX_A_ZZ, 8, 2, 16, 2, 64, 32, 2>(), "A ZZ");
static_assert(mx_is<Layout::MX_A_ND, 1, 128, 2, 2, 512, 4, 2>(), "A ND");
static_assert(mx_is<Layout::MX_A_DN, 1, 2, 128, 2, 512, 256, 2>(), "A DN");
static_assert(mx_is<Layout::MX_B_NN, 0, 64, 16, 2, 2048, 32, 2>(), "B NN");
static_assert(mx_is<Layout::MX_B_ND, 1, 64, 4, 2, 512, 8, 2>(), "B ND");
static_assert(mx_is<Layout::MX_B_DN, 1, 4, 64, 2, 512, 128, 2>(), "B DN");
static_assert(TileShape2D<float8_e8m0_t, DYNAMIC, 4, Layout::MX_A_ZZ>::staticShape[1] == DYNAMIC, "dynamic");

extern "C" __global__ AICORE void mx_shapes(__gm__ float8_e8m0_t *scales)
{
    using GmScale = GlobalTensor<float8_e8m0_t, TileShape2D<float8_e8m0_t, DYNAMIC, DYNAMIC, Layout::MX_A_ND>,
                                 BaseShape2D<float8_e8m0_t, DYNAMIC, DYNAMIC, Layout::MX_A_ND>, Layout::MX_A_ND>;
    GmScale g(scales, TileShape2D<float8_e8m0_t, DYNAMIC, DYNAMIC, Layout::MX_A_ND>(64, 8),
              BaseShape2D<float8_e8m0_t, DYNAMIC, DYNAMIC, Layout::MX_A_ND>(64, 8));
    (void)g;
}
"""

SNIPPETS = {
    "float16_encodings": (FLOAT16_ENCODINGS, "vec", False),
    "mx_shapes": (MX_SHAPES, "vec", False),
    "test_kernel_names": (TEST_KERNEL_NAMES, "vec", False),
    "vector_add": (VECTOR_ADD, "vec", True),
    "cube_gemm": (CUBE_GEMM, "cube", True),
    "multi_buffered": (MULTI_BUFFERED, "vec", True),
    "manual": (MANUAL, "vec", False),
    "vector_all_forms": (VECTOR_ALL_FORMS, "vec", False),
}


def _resource_dir_variants() -> list[list[str]]:
    """Parse once as the libclang wheel alone would (no compiler builtin headers, so no standard
    library) and once with the builtin headers the front end passes (standard library reachable)."""
    from ptorewrite.parse.invocation import resource_dir

    variants: list[list[str]] = [[]]
    found = resource_dir()
    if found is not None:
        variants.append(["-resource-dir", str(found)])
    return variants


def _parse(source: str, args: list[str], name: str = "kernel.cpp"):
    index = ci.Index.create()
    return index.parse(name, args=args, unsaved_files=[(name, source)])


def _bad_diagnostics(tu) -> list[str]:
    return [
        f"{d.location.file}:{d.location.line}:{d.location.column}: {d.spelling}"
        for d in tu.diagnostics
        if d.severity >= ci.Diagnostic.Warning
    ]


@pytest.mark.parametrize("extra", _resource_dir_variants(), ids=lambda e: "stdlib" if e else "wheel-only")
@pytest.mark.parametrize("arch", sorted(ARCH_MACROS))
@pytest.mark.parametrize("snippet", sorted(SNIPPETS))
def test_snippet_parses_without_diagnostics(snippet: str, arch: str, extra: list[str]) -> None:
    source, core, auto_mode = SNIPPETS[snippet]
    tu = _parse(source, parse_args(arch, core, auto_mode=auto_mode) + extra)
    assert _bad_diagnostics(tu) == []


def test_headers_parse_without_any_macros() -> None:
    # The front end always passes a profile, but the headers must not depend on it.
    tu = _parse(VECTOR_ADD, ["-x", "c++", "-std=c++17", "-I", str(INCLUDE_DIR)])
    assert _bad_diagnostics(tu) == []


def _pto_function_names(tu, namespace: tuple[str, ...] = ("pto",)) -> set[str]:
    names: set[str] = set()

    def visit(cursor, path: tuple[str, ...] = ()) -> None:
        for child in cursor.get_children():
            if child.kind == ci.CursorKind.NAMESPACE and path + (child.spelling,) == namespace[:len(path) + 1]:
                if len(path) + 1 < len(namespace):
                    visit(child, path + (child.spelling,))
                    continue
                for decl in child.get_children():
                    if decl.kind in (ci.CursorKind.FUNCTION_TEMPLATE, ci.CursorKind.FUNCTION_DECL):
                        names.add(decl.spelling)

    visit(tu.cursor)
    return names


def test_every_instruction_is_declared_in_namespace_pto() -> None:
    tu = _parse("#include <pto/pto-inst.hpp>\n", parse_args("a2a3", "vec"))
    assert _bad_diagnostics(tu) == []
    declared = _pto_function_names(tu)
    missing = sorted(set(DECLARED_INSTRUCTIONS) - declared)
    assert missing == []


COMM_SNIPPET = r"""
#include <pto/pto-inst.hpp>
#include <pto/comm/pto_comm_inst.hpp>
using namespace pto;

using Stage = Tile<TileType::Vec, half, 32, 128, BLayout::RowMajor, -1, -1>;
using Gm = GlobalTensor<half, Shape<1, 1, 1, 32, 128>, Stride<1, 1, 1, 128, 1>>;

AICORE void Exchange(__gm__ half *peer, __gm__ half *mine, __gm__ int32_t *flags)
{
    Stage ping(32, 128), pong(32, 128);
    Gm remote(peer), local(mine);
    comm::TPUT(remote, local, ping);
    comm::TPUT<AtomicType::AtomicAdd>(remote, local, ping, pong);
    comm::TPUT(remote, local, ping, AtomicType::AtomicAdd);
    comm::TGET(local, remote, ping);
    comm::Signal ready(flags);
    comm::TNOTIFY(ready, 1, comm::NotifyOp::Set);
    comm::TWAIT(ready, 1, comm::WaitCmp::EQ);
    if (comm::TTEST(ready, 2, comm::WaitCmp::GE)) {
        SYNCALL<SyncCoreType::AIVOnly>();
    }
}
"""


@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_comm_header_declares_the_communication_instructions(arch: str) -> None:
    tu = _parse(COMM_SNIPPET, parse_args(arch, "vec"))
    assert _bad_diagnostics(tu) == []
    declared = _pto_function_names(tu, ("pto", "comm"))
    assert {"TPUT", "TGET", "TNOTIFY", "TWAIT", "TTEST", "TGATHER", "TSCATTER", "TBROADCAST", "TREDUCE",
            "TPUT_ASYNC", "TGET_ASYNC"} <= declared
    # Not in namespace pto itself, where TGATHER / TSCATTER are the vector instructions.
    assert not {"TPUT", "TGET", "TNOTIFY", "TWAIT", "TTEST"} & _pto_function_names(tu)


def test_instruction_table_names_are_declared() -> None:
    instructions = pytest.importorskip("ptorewrite.analysis.instructions")
    wanted = set(instructions.INSTRUCTIONS)
    for group in ("ALIAS_OPS", "CONFIG_OPS", "CROSS_CORE_OPS"):
        wanted |= set(getattr(instructions, group, ()))
    wanted -= set(instructions.MX_ACCUMULATING_FORMS.values())  # forms a call is read as, not names
    tu = _parse("#include <pto/pto-inst.hpp>\n", parse_args("a2a3", "vec"))
    assert sorted(wanted - _pto_function_names(tu)) == []


def _calls(tu, file_name: str = "kernel.cpp"):
    for cursor in tu.cursor.walk_preorder():
        loc_file = cursor.location.file
        if cursor.kind == ci.CursorKind.CALL_EXPR and loc_file is not None and loc_file.name == file_name:
            yield cursor


def test_calls_resolve_to_pto_declarations_with_pto_parameter_names() -> None:
    tu = _parse(MANUAL, parse_args("a2a3", "vec", auto_mode=False))
    params: dict[str, list[str]] = {}
    for call in _calls(tu):
        ref = call.referenced
        if ref is not None and ref.kind == ci.CursorKind.FUNCTION_DECL and call.spelling.startswith("T"):
            assert ref.semantic_parent.spelling == "pto", call.spelling
            params.setdefault(call.spelling, [a.spelling for a in ref.get_arguments()])
    assert params["TROWSUM"] == ["dst", "src", "tmp"]
    assert params["TROWMAX"] == ["dst", "src", "tmp"]
    assert params["TROWEXPANDSUB"] == ["dst", "src0", "src1"]
    assert params["TSUBVIEW"] == ["dst", "src", "rowIdx", "colIdx"]
    assert params["TRESHAPE"] == ["dst", "src"]
    assert params["TSTORE"][:2] == ["dst", "src"]
    assert params["TCVT"] == ["dst", "src", "mode"]


def test_sync_intrinsics_and_event_cast() -> None:
    tu = _parse(MANUAL, parse_args("a2a3", "vec", auto_mode=False))
    seen = {c.spelling for c in _calls(tu)}
    assert {"set_flag", "wait_flag", "pipe_barrier", "get_block_idx"} <= seen


def test_half_and_bfloat16_spellings_survive_canonicalisation() -> None:
    src = (
        "#include <pto/pto-inst.hpp>\nusing namespace pto;\n"
        "using TH = Tile<TileType::Vec, half, 16, 64>;\n"
        "using TB = Tile<TileType::Vec, bfloat16_t, 16, 64>;\n"
        "TH th; TB tb;\n"
    )
    tu = _parse(src, parse_args("a2a3", "vec"))
    assert _bad_diagnostics(tu) == []
    spellings = {}
    for cursor in tu.cursor.get_children():
        if cursor.kind == ci.CursorKind.VAR_DECL and cursor.spelling in ("th", "tb"):
            canonical = cursor.type.get_canonical()
            spellings[cursor.spelling] = canonical.get_template_argument_type(1).spelling
    assert spellings == {"th": "half", "tb": "bfloat16_t"}


def test_multibuffered_body_is_instantiated_per_lane() -> None:
    # A body that is ill-formed for every lane must be diagnosed, proving the helper
    # instantiates Context<Phase, bufferId> for each buffer.
    src = MULTI_BUFFERED.replace(
        'static_assert(lane >= 0 && lane < kNumBuffers, "lane is a compile-time buffer id");',
        'static_assert(lane < 0, "lane");',
    )
    tu = _parse(src, parse_args("a2a3", "vec"))
    errors = [d.spelling for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    assert len(errors) == 2


@pytest.mark.parametrize(("arch", "ub_kib", "l0c_kib"), [("a2a3", 192, 128), ("a5", 256, 256)])
def test_buffer_limits_follow_the_profile(arch: str, ub_kib: int, l0c_kib: int) -> None:
    # Kernels size their buffers with these names; the figures are the machine model's capacities.
    source = (
        "#include <pto/common/buffer_limits.hpp>\n"
        f"static_assert(PTO_UBUF_SIZE_BYTES == {ub_kib}u * 1024u, \"UB\");\n"
        f"static_assert(PTO_L0C_SIZE_BYTES == {l0c_kib}u * 1024u, \"L0C\");\n"
        "static_assert(PTO_CBUF_SIZE_BYTES == 512u * 1024u && PTO_L0A_SIZE_BYTES == 64u * 1024u, \"L1 L0A\");\n"
    )
    tu = _parse(source, parse_args(arch, "vec", auto_mode=False))
    assert _bad_diagnostics(tu) == []
