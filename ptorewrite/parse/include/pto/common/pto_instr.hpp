// ptorewrite parse-only headers: declarations of the PTO tile instructions.
//
// Each instruction is a function template taking its tile / tensor operands generically,
// with pto-isa's parameter order, parameter names and template-parameter forms (phase,
// atomic, relu, precision and mode selectors). There are no bodies: libclang only needs to
// resolve calls. Conventions the ptorewrite front end relies on:
//   * the first tile parameter is the destination (TSTORE: the GlobalTensor `dst`);
//   * a scratch tile parameter is always named `tmp`;
//   * every instruction accepts trailing Event<> arguments (`WaitEvents &...events`) and
//     returns RecordEvent, as in pto-isa. The pack only accepts events, so a trailing tile
//     can never be swallowed by it and overload resolution stays unambiguous.
#ifndef PTOREWRITE_PTO_INSTR_HPP
#define PTOREWRITE_PTO_INSTR_HPP

#include <pto/common/event.hpp>
#include <pto/common/fifo.hpp>
#include <pto/common/pto_tile.hpp>

// Trailing "wait for these events" pack, restricted to Event<> types.
#define PTOREWRITE_EVENTS typename... WaitEvents, detail::enable_if_t<all_events_v<WaitEvents...>, int> = 0

// Round x up to a multiple of y; a5's instruction headers define it and a5 kernels use it.
#if defined(PTO_NPU_ARCH_A5) && !defined(PTO_CEIL)
#define PTO_CEIL(x, y) ((((x) + (y) - 1) / (y)) * (y))
#endif
// The a5 compiler's vector register length in bytes; a5 code divides it by an element size to
// count the lanes of one vector instruction.
#if defined(PTO_NPU_ARCH_A5) && !defined(CCE_VL)
#define CCE_VL 256
#endif

namespace pto {

// MrgSort reports how many elements of each input list it consumed. Kernels that are also
// compiled on the host guard their own fallback copy with TMRGSORT_HPP.
#ifndef TMRGSORT_HPP
#define TMRGSORT_HPP
struct MrgSortExecutedNumList {
    uint16_t mrgSortList0;
    uint16_t mrgSortList1;
    uint16_t mrgSortList2;
    uint16_t mrgSortList3;
};
#endif

// ======================================================================================
// Binding, synchronisation and mode configuration (scalar unit)
// ======================================================================================

// Bind a tile (or GlobalTensor) to a byte address in its buffer.
template <typename T, typename AddrType>
PTOREWRITE_DECL void TASSIGN(T &obj, AddrType addr);

// Same, with the address as a compile-time constant (bounds/alignment checked statically).
template <size_t Addr, typename T>
PTOREWRITE_DECL detail::enable_if_t<is_tile_data_v<T> || is_conv_tile_v<T>> TASSIGN(T &obj);

// Barrier on the pipe of instruction class OpCode.
template <Op OpCode>
PTOREWRITE_DECL void TSYNC();

// Wait for the given events.
template <typename... WaitEvents>
PTOREWRITE_DECL void TSYNC(WaitEvents &...events);

// All-core barrier (cross-core: passed through, not analysed). The second form names the mode and
// takes the GM workspace the soft barrier counts in.
template <SyncCoreType CoreType = SyncCoreType::AIVOnly>
PTOREWRITE_DECL void SYNCALL();
template <SyncAllMode Mode, SyncCoreType CoreType = SyncCoreType::AIVOnly, typename GlobalData,
          detail::enable_if_t<is_global_data_v<GlobalData>, int> = 0>
PTOREWRITE_DECL void SYNCALL(GlobalData &gmWorkspace, int32_t usedCores = 0);

template <typename ConvTileData, SetFmatrixMode FmatrixMode = SetFmatrixMode::FMATRIX_A_MANUAL, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent SETFMATRIX(ConvTileData &src, WaitEvents &...events);

// Fixpipe quantization registers: one scale for every channel (OutType: the converted type), or
// the Scaling tile of per-channel scales the next quantizing fixpipe moves read.
template <typename OutType, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent SET_QUANT_SCALAR(float scale, WaitEvents &...events);
template <typename ScalingTile, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent SET_QUANT_VECTOR(ScalingTile &scales, WaitEvents &...events);

template <typename ConvTileData, SetFmatrixMode FmatrixMode = SetFmatrixMode::FMATRIX_A_MANUAL, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent SET_IMG2COL_RPT(ConvTileData &src, WaitEvents &...events);

template <typename ConvTileData, SetFmatrixMode FmatrixMode = SetFmatrixMode::FMATRIX_A_MANUAL, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent SET_IMG2COL_PADDING(ConvTileData &src, WaitEvents &...events);

template <bool isEnable, RoundMode tf32TransMode = RoundMode::CAST_ROUND>
PTOREWRITE_DECL void TSETTF32MODE();

template <bool isEnable, RoundMode hf32TransMode = RoundMode::CAST_ROUND>
PTOREWRITE_DECL void TSETHF32MODE();

template <PrintFormat Format = PrintFormat::Width8_Precision4, typename TileData>
PTOREWRITE_DECL void TPRINT(TileData &src);

template <PrintFormat Format = PrintFormat::Width8_Precision4, typename TileData, typename GlobalData>
PTOREWRITE_DECL void TPRINT(TileData &src, GlobalData &tmp);

// ======================================================================================
// GM <-> on-chip transfers
// ======================================================================================

template <typename TileData, typename GlobalData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TLOAD(TileData &dst, GlobalData &src, WaitEvents &...events);

template <typename TileData, typename GlobalData>
PTOREWRITE_DECL RecordEvent TPREFETCH(TileData &dst, GlobalData &src);

// TSTORE(dst = GlobalTensor, src = tile). Optional template selectors, in pto-isa's order:
//   TSTORE<STPhase>(...), TSTORE<Tile, Global, AtomicType>(...),
//   TSTORE<STPhase, Tile, Global, AtomicType>(...), + ReluPreMode, + a pre-quant scalar.
template <typename TileData, typename GlobalData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSTORE(GlobalData &dst, TileData &src, WaitEvents &...events);

template <STPhase Phase, typename TileData, typename GlobalData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSTORE(GlobalData &dst, TileData &src, WaitEvents &...events);

template <typename TileData, typename GlobalData, AtomicType atomicType, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSTORE(GlobalData &dst, TileData &src, WaitEvents &...events);

template <STPhase Phase, typename TileData, typename GlobalData, AtomicType atomicType, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSTORE(GlobalData &dst, TileData &src, WaitEvents &...events);

template <typename TileData, typename GlobalData, AtomicType atomicType = AtomicType::AtomicNone,
          ReluPreMode reluPreMode, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSTORE(GlobalData &dst, TileData &src, WaitEvents &...events);

template <STPhase Phase, typename TileData, typename GlobalData, AtomicType atomicType = AtomicType::AtomicNone,
          ReluPreMode reluPreMode, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSTORE(GlobalData &dst, TileData &src, WaitEvents &...events);

template <typename TileData, typename GlobalData, AtomicType atomicType = AtomicType::AtomicNone,
          ReluPreMode reluPreMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSTORE(GlobalData &dst, TileData &src, uint64_t preQuantScalar, WaitEvents &...events);

template <STPhase Phase, typename TileData, typename GlobalData, AtomicType atomicType = AtomicType::AtomicNone,
          ReluPreMode reluPreMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSTORE(GlobalData &dst, TileData &src, uint64_t preQuantScalar, WaitEvents &...events);

template <typename TileData, typename GlobalData, typename FpTileData, AtomicType atomicType = AtomicType::AtomicNone,
          ReluPreMode reluPreMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSTORE_FP(GlobalData &dst, TileData &src, FpTileData &fp, WaitEvents &...events);

// Indexed GM gather into a tile / scatter from a tile.
template <typename TileDst, typename GlobalData, typename TileInd, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent MGATHER(TileDst &dst, GlobalData &src, TileInd &indexes, WaitEvents &...events);

template <Coalesce CMode, typename TileDst, typename GlobalData, typename TileInd, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent MGATHER(TileDst &dst, GlobalData &src, TileInd &indexes, WaitEvents &...events);

template <Coalesce CMode, GatherOOB Mode, typename TileDst, typename GlobalData, typename TileInd, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent MGATHER(TileDst &dst, GlobalData &src, TileInd &indexes, WaitEvents &...events);

// GM -> L1 gather: the destination is a Mat (NZ) tile and the indices come from GM; the element
// form stages the gathered values in the GM `scratch` tensor before one copy into L1. a5 also
// selects how the scalar walk runs (GatherExec).
template <Coalesce CMode, typename TileDst, typename GlobalData, typename GlobalIdx, typename GlobalScratch,
          detail::enable_if_t<is_global_data_v<GlobalIdx> && is_global_data_v<GlobalScratch>, int> = 0>
PTOREWRITE_DECL RecordEvent MGATHER(TileDst &dst, GlobalData &src, GlobalIdx &indexes, GlobalScratch &scratch);

template <Coalesce CMode, GatherOOB Mode, typename TileDst, typename GlobalData, typename GlobalIdx,
          typename GlobalScratch,
          detail::enable_if_t<is_global_data_v<GlobalIdx> && is_global_data_v<GlobalScratch>, int> = 0>
PTOREWRITE_DECL RecordEvent MGATHER(TileDst &dst, GlobalData &src, GlobalIdx &indexes, GlobalScratch &scratch);

#ifdef PTO_NPU_ARCH_A5
template <Coalesce CMode, GatherOOB Mode, GatherExec Exec, typename TileDst, typename GlobalData, typename GlobalIdx,
          typename GlobalScratch,
          detail::enable_if_t<is_global_data_v<GlobalIdx> && is_global_data_v<GlobalScratch>, int> = 0>
PTOREWRITE_DECL RecordEvent MGATHER(TileDst &dst, GlobalData &src, GlobalIdx &indexes, GlobalScratch &scratch);
#endif

template <typename GlobalData, typename TileSrc, typename TileInd, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent MSCATTER(GlobalData &dst, TileSrc &src, TileInd &indexes, WaitEvents &...events);

template <Coalesce Mode, typename GlobalData, typename TileSrc, typename TileInd, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent MSCATTER(GlobalData &dst, TileSrc &src, TileInd &indexes, WaitEvents &...events);

template <Coalesce Mode, ScatterAtomicOp Atomic, typename GlobalData, typename TileSrc, typename TileInd,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent MSCATTER(GlobalData &dst, TileSrc &src, TileInd &indexes, WaitEvents &...events);

// Out-of-range index policy; a5 also says which write wins when two indices collide.
template <Coalesce Mode, ScatterAtomicOp Atomic, ScatterOOB Oob, typename GlobalData, typename TileSrc,
          typename TileInd, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent MSCATTER(GlobalData &dst, TileSrc &src, TileInd &indexes, WaitEvents &...events);

#ifdef PTO_NPU_ARCH_A5
template <Coalesce Mode, ScatterAtomicOp Atomic, ScatterOOB Oob, ScatterConflict Conflict, typename GlobalData,
          typename TileSrc, typename TileInd, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent MSCATTER(GlobalData &dst, TileSrc &src, TileInd &indexes, WaitEvents &...events);
#endif

// ======================================================================================
// On-chip moves: TMOV, TEXTRACT (window read at indexRow/indexCol), TINSERT (window write)
// ======================================================================================

template <typename DstTileData, typename SrcTileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, typename TmpTileData, PTOREWRITE_EVENTS,
          detail::enable_if_t<is_tile_data_v<TmpTileData>, int> = 0>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, TmpTileData &tmp, WaitEvents &...events);

#ifdef PTO_NPU_ARCH_A5
// Exponents into ZZ order through a scratch tile; grp_axis 0 reads a source grouped along axis 0
// (DN), 1 an ND one.
template <int grp_axis, typename DstTileData, typename SrcTileData, typename TmpTileData, PTOREWRITE_EVENTS,
          detail::enable_if_t<is_tile_data_v<TmpTileData>, int> = 0>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, TmpTileData &tmp, WaitEvents &...events);
#endif

template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, WaitEvents &...events);

// The accumulator moves (L0C -> L1 / UB) also take a leading store phase (STPhase), as TSTORE
// does; the phase does not change which bytes move.
template <STPhase Phase, typename DstTileData, typename SrcTileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, WaitEvents &...events);

template <STPhase Phase, typename DstTileData, typename SrcTileData, ReluPreMode reluMode, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, WaitEvents &...events);

template <STPhase Phase, typename DstTileData, typename SrcTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, AccToVecMode mode, ReluPreMode reluMode = ReluPreMode::NoRelu,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, typename FpTileData, ReluPreMode reluMode = ReluPreMode::NoRelu,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV_FP(DstTileData &dst, SrcTileData &src, FpTileData &fp, WaitEvents &...events);

template <STPhase Phase, typename DstTileData, typename SrcTileData, typename FpTileData,
          ReluPreMode reluMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV_FP(DstTileData &dst, SrcTileData &src, FpTileData &fp, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, typename FpTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, FpTileData &fp, WaitEvents &...events);

template <STPhase Phase, typename DstTileData, typename SrcTileData, typename FpTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, FpTileData &fp, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, AccToVecMode mode, ReluPreMode reluMode = ReluPreMode::NoRelu,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, WaitEvents &...events);

template <STPhase Phase, typename DstTileData, typename SrcTileData, ReluPreMode reluMode = ReluPreMode::NoRelu,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, WaitEvents &...events);

template <STPhase Phase, typename DstTileData, typename SrcTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMOV(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, WaitEvents &...events);

#ifdef PTO_NPU_ARCH_A5
// The step of a5's vector-to-vector TMOV that rewrites the rows of a row-major (ND) tile as the
// 16-row fractals (NZ) of another, on the vector pipe. Kernels call it directly with both tiles'
// data() and the extents TMOV would pass: dst's valid rows and columns, src's valid rows.
template <typename T, typename DstTileData, typename SrcTileData>
PTOREWRITE_DECL void TMovToVecNd2Nz(typename DstTileData::TileDType dst, typename SrcTileData::TileDType src,
                                    uint32_t validRow, uint32_t validCol, uint32_t srcValidRow,
                                    unsigned version = 0);
#endif

// TEXTRACT(dst, src, indexRow, indexCol): dst <- src[indexRow.., indexCol..].
template <typename DstTileData, typename SrcTileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TEXTRACT(DstTileData &dst, SrcTileData &src, uint16_t indexRow = 0, uint16_t indexCol = 0,
                                     WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TEXTRACT(DstTileData &dst, SrcTileData &src, uint16_t indexRow, uint16_t indexCol,
                                     WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, AccToVecMode mode, ReluPreMode reluMode = ReluPreMode::NoRelu,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TEXTRACT(DstTileData &dst, SrcTileData &src, uint16_t indexRow, uint16_t indexCol,
                                     WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TEXTRACT(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, uint16_t indexRow,
                                     uint16_t indexCol, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, AccToVecMode mode, ReluPreMode reluMode = ReluPreMode::NoRelu,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TEXTRACT(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, uint16_t indexRow,
                                     uint16_t indexCol, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, typename FpTileData, ReluPreMode reluMode = ReluPreMode::NoRelu,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TEXTRACT_FP(DstTileData &dst, SrcTileData &src, FpTileData &fp, uint16_t indexRow,
                                        uint16_t indexCol, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, typename FpTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TEXTRACT(DstTileData &dst, SrcTileData &src, FpTileData &fp, uint16_t indexRow,
                                     uint16_t indexCol, WaitEvents &...events);

// TEXTRACT(dst0, dst1, src, r0, c0, r1, c1): two NZ windows of one ND tile at once,
// dst0 <- src[r0.., c0..] and dst1 <- src[r1.., c1..].
template <typename Dst0TileData, typename Dst1TileData, typename SrcTileData, PTOREWRITE_EVENTS,
          detail::enable_if_t<is_tile_data_v<SrcTileData>, int> = 0>
PTOREWRITE_DECL RecordEvent TEXTRACT(Dst0TileData &dst0, Dst1TileData &dst1, SrcTileData &src, uint16_t indexRow0 = 0,
                                     uint16_t indexCol0 = 0, uint16_t indexRow1 = 0, uint16_t indexCol1 = 0,
                                     WaitEvents &...events);

// TINSERT(dst, src, indexRow, indexCol): dst[indexRow.., indexCol..] <- src.
template <typename DstTileData, typename SrcTileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TINSERT(DstTileData &dst, SrcTileData &src, uint16_t indexRow, uint16_t indexCol,
                                    WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TINSERT(DstTileData &dst, SrcTileData &src, uint16_t indexRow, uint16_t indexCol,
                                    WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, AccToVecMode mode, ReluPreMode reluMode = ReluPreMode::NoRelu,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TINSERT(DstTileData &dst, SrcTileData &src, uint16_t indexRow, uint16_t indexCol,
                                    WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, ReluPreMode reluMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TINSERT(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, uint16_t indexRow,
                                    uint16_t indexCol, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, AccToVecMode mode, ReluPreMode reluMode = ReluPreMode::NoRelu,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TINSERT(DstTileData &dst, SrcTileData &src, uint64_t preQuantScalar, uint16_t indexRow,
                                    uint16_t indexCol, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, typename FpTileData, ReluPreMode reluMode = ReluPreMode::NoRelu,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TINSERT_FP(DstTileData &dst, SrcTileData &src, FpTileData &fp, uint16_t indexRow,
                                       uint16_t indexCol, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, typename FpTileData, AccToVecMode mode,
          ReluPreMode reluMode = ReluPreMode::NoRelu, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TINSERT(DstTileData &dst, SrcTileData &src, FpTileData &fp, uint16_t indexRow,
                                    uint16_t indexCol, WaitEvents &...events);

// a5 only in pto-isa.
template <TInsertMode mode, typename DstTileData, typename SrcTileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TINSERT(DstTileData &dst, SrcTileData &src, uint16_t indexRow = 0, uint16_t indexCol = 0,
                                    WaitEvents &...events);

// L1 -> L0A with on-the-fly img2col.
template <typename TileData, typename ConvTileData, SetFmatrixMode FmatrixMode = SetFmatrixMode::FMATRIX_A_MANUAL,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TIMG2COL(TileData &dst, ConvTileData &src, uint16_t posM = 0, uint16_t posK = 0,
                                     WaitEvents &...events);

// ======================================================================================
// Cube (PIPE_M)
// ======================================================================================

template <typename TileRes, typename TileLeft, typename TileRight, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMATMUL(TileRes &cMatrix, TileLeft &aMatrix, TileRight &bMatrix, WaitEvents &...events);

template <AccPhase Phase, typename TileRes, typename TileLeft, typename TileRight, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMATMUL(TileRes &cMatrix, TileLeft &aMatrix, TileRight &bMatrix, WaitEvents &...events);

// cOut = cIn + a*b (cIn and cOut usually the same tile).
template <typename TileRes, typename TileLeft, typename TileRight, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMATMUL_ACC(TileRes &cOutMatrix, TileRes &cInMatrix, TileLeft &aMatrix,
                                        TileRight &bMatrix, WaitEvents &...events);

template <AccPhase Phase, typename TileRes, typename TileLeft, typename TileRight, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMATMUL_ACC(TileRes &cOutMatrix, TileRes &cInMatrix, TileLeft &aMatrix,
                                        TileRight &bMatrix, WaitEvents &...events);

// c += a*b, one accumulator operand.
template <AccPhase Phase = AccPhase::Unspecified, typename TileRes, typename TileLeft, typename TileRight,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMATMUL_ACC(TileRes &cMatrix, TileLeft &aMatrix, TileRight &bMatrix,
                                        WaitEvents &...events);

template <typename TileRes, typename TileLeft, typename TileRight, typename TileBias, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMATMUL_BIAS(TileRes &cMatrix, TileLeft &aMatrix, TileRight &bMatrix, TileBias &biasData,
                                         WaitEvents &...events);

template <AccPhase Phase, typename TileRes, typename TileLeft, typename TileRight, typename TileBias,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMATMUL_BIAS(TileRes &cMatrix, TileLeft &aMatrix, TileRight &bMatrix, TileBias &biasData,
                                         WaitEvents &...events);

template <typename TileRes, typename TileLeft, typename TileRight, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGEMV(TileRes &cMatrix, TileLeft &aMatrix, TileRight &bMatrix, WaitEvents &...events);

template <AccPhase Phase, typename TileRes, typename TileLeft, typename TileRight, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGEMV(TileRes &cMatrix, TileLeft &aMatrix, TileRight &bMatrix, WaitEvents &...events);

template <typename TileRes, typename TileLeft, typename TileRight, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGEMV_ACC(TileRes &cOutMatrix, TileRes &cInMatrix, TileLeft &aMatrix, TileRight &bMatrix,
                                      WaitEvents &...events);

template <AccPhase Phase, typename TileRes, typename TileLeft, typename TileRight, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGEMV_ACC(TileRes &cOutMatrix, TileRes &cInMatrix, TileLeft &aMatrix, TileRight &bMatrix,
                                      WaitEvents &...events);

template <typename TileRes, typename TileLeft, typename TileRight, typename TileBias, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGEMV_BIAS(TileRes &cMatrix, TileLeft &aMatrix, TileRight &bMatrix, TileBias &biasData,
                                       WaitEvents &...events);

template <AccPhase Phase, typename TileRes, typename TileLeft, typename TileRight, typename TileBias,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGEMV_BIAS(TileRes &cMatrix, TileLeft &aMatrix, TileRight &bMatrix, TileBias &biasData,
                                       WaitEvents &...events);

// MX (block-scaled) matmul, a5 only in pto-isa.
template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMATMUL_MX(TileRes &cMatrix, TileLeft &aMatrix, TileLeftScale &aScaleMatrix,
                                       TileRight &bMatrix, TileRightScale &bScaleMatrix, WaitEvents &...events);

template <AccPhase Phase, typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight,
          typename TileRightScale, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMATMUL_MX(TileRes &cMatrix, TileLeft &aMatrix, TileLeftScale &aScaleMatrix,
                                       TileRight &bMatrix, TileRightScale &bScaleMatrix, WaitEvents &...events);

template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMATMUL_MX(TileRes &cOutMatrix, TileRes &cInMatrix, TileLeft &aMatrix,
                                       TileLeftScale &aScaleMatrix, TileRight &bMatrix, TileRightScale &bScaleMatrix,
                                       WaitEvents &...events);

template <AccPhase Phase, typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight,
          typename TileRightScale, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMATMUL_MX(TileRes &cOutMatrix, TileRes &cInMatrix, TileLeft &aMatrix,
                                       TileLeftScale &aScaleMatrix, TileRight &bMatrix, TileRightScale &bScaleMatrix,
                                       WaitEvents &...events);

template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale,
          typename TileBias, PTOREWRITE_EVENTS, detail::enable_if_t<is_tile_data_v<TileBias>, int> = 0>
PTOREWRITE_DECL RecordEvent TMATMUL_MX(TileRes &cMatrix, TileLeft &aMatrix, TileLeftScale &aScaleMatrix,
                                       TileRight &bMatrix, TileRightScale &bScaleMatrix, TileBias &biasData,
                                       WaitEvents &...events);

template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGEMV_MX(TileRes &cMatrix, TileLeft &aMatrix, TileLeftScale &aScaleMatrix,
                                     TileRight &bMatrix, TileRightScale &bScaleMatrix, WaitEvents &...events);

template <AccPhase Phase, typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight,
          typename TileRightScale, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGEMV_MX(TileRes &cMatrix, TileLeft &aMatrix, TileLeftScale &aScaleMatrix,
                                     TileRight &bMatrix, TileRightScale &bScaleMatrix, WaitEvents &...events);

// Accumulating forms (into cOut from cIn) and the form that adds a bias row.
template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGEMV_MX(TileRes &cOutMatrix, TileRes &cInMatrix, TileLeft &aMatrix,
                                     TileLeftScale &aScaleMatrix, TileRight &bMatrix, TileRightScale &bScaleMatrix,
                                     WaitEvents &...events);

template <AccPhase Phase, typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight,
          typename TileRightScale, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGEMV_MX(TileRes &cOutMatrix, TileRes &cInMatrix, TileLeft &aMatrix,
                                     TileLeftScale &aScaleMatrix, TileRight &bMatrix, TileRightScale &bScaleMatrix,
                                     WaitEvents &...events);

template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale,
          typename TileBias, PTOREWRITE_EVENTS, detail::enable_if_t<is_tile_data_v<TileBias>, int> = 0>
PTOREWRITE_DECL RecordEvent TGEMV_MX(TileRes &cMatrix, TileLeft &aMatrix, TileLeftScale &aScaleMatrix,
                                     TileRight &bMatrix, TileRightScale &bScaleMatrix, TileBias &biasData,
                                     WaitEvents &...events);

// ======================================================================================
// Vector: elementwise tile-tile
// ======================================================================================

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TADD(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSUB(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMUL(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <auto PrecisionType = DivAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc0,
          typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TDIV(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMIN(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMAX(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TAND(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TOR(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TXOR(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, TileDataTmp &tmp,
                                 WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSHL(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSHR(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <auto PrecisionType = RemAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc0,
          typename TileDataSrc1, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TREM(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, TileDataTmp &tmp,
                                 WaitEvents &...events);

template <auto PrecisionType = FmodAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc0,
          typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TFMOD(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <auto PrecisionType = PowAlgorithm::DEFAULT, typename DstTile, typename BaseTile, typename ExpTile,
          typename TmpTile, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPOW(DstTile &dst, BaseTile &base, ExpTile &exp, TmpTile &tmp, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPRELU(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, TileDataTmp &tmp,
                                   WaitEvents &...events);

// dst = src0 + src1 + src2 (three-input add / sub).
template <typename TileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TADDC(TileData &dst, TileData &src0, TileData &src1, TileData &src2,
                                  WaitEvents &...events);

template <typename TileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSUBC(TileData &dst, TileData &src0, TileData &src1, TileData &src2,
                                  WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCMP(TileDataDst &dst, TileDataSrc &src0, TileDataSrc &src1, CmpMode cmpMode,
                                 WaitEvents &...events);

// dst = selMask ? src0 : src1
template <typename TileData, typename MaskTile, typename TmpTile, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSEL(TileData &dst, MaskTile &selMask, TileData &src0, TileData &src1, TmpTile &tmp,
                                 WaitEvents &...events);

// Elementwise on partially overlapping valid regions.
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPARTADD(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPARTMUL(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPARTMAX(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPARTMIN(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataDstIdx,
          typename TileDataSrc0Idx, typename TileDataSrc1Idx, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPARTARGMAX(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                        TileDataDstIdx &dstIdx, TileDataSrc0Idx &src0Idx, TileDataSrc1Idx &src1Idx,
                                        WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataDstIdx,
          typename TileDataSrc0Idx, typename TileDataSrc1Idx, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPARTARGMIN(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                        TileDataDstIdx &dstIdx, TileDataSrc0Idx &src0Idx, TileDataSrc1Idx &src1Idx,
                                        WaitEvents &...events);

// ======================================================================================
// Vector: unary
// ======================================================================================

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TABS(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TNEG(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TNOT(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TRELU(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events);

template <auto PrecisionType = ExpAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TEXP(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events);

template <auto PrecisionType = LogAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TLOG(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events);

template <auto PrecisionType = SqrtAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSQRT(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events);

template <auto PrecisionType = RsqrtAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TRSQRT(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events);

template <auto PrecisionType = RsqrtAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc,
          typename TileDataTmp, PTOREWRITE_EVENTS, detail::enable_if_t<is_tile_data_v<TileDataTmp>, int> = 0>
PTOREWRITE_DECL RecordEvent TRSQRT(TileDataDst &dst, TileDataSrc &src, TileDataTmp &tmp, WaitEvents &...events);

template <auto PrecisionType = RecipAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TRECIP(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events);

// Type conversion; optional scratch tile and saturation selector.
template <typename TileDataD, typename TileDataS, typename TmpTileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCVT(TileDataD &dst, TileDataS &src, TmpTileData &tmp, RoundMode mode,
                                 SaturationMode satMode, WaitEvents &...events);

template <typename TileDataD, typename TileDataS, typename TmpTileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCVT(TileDataD &dst, TileDataS &src, TmpTileData &tmp, RoundMode mode,
                                 WaitEvents &...events);

template <typename TileDataD, typename TileDataS, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCVT(TileDataD &dst, TileDataS &src, RoundMode mode, SaturationMode satMode,
                                 WaitEvents &...events);

template <typename TileDataD, typename TileDataS, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCVT(TileDataD &dst, TileDataS &src, RoundMode mode, WaitEvents &...events);

// ======================================================================================
// Vector: tile-scalar
// ======================================================================================

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TADDS(TileDataDst &dst, TileDataSrc &src0, typename TileDataSrc::DType scalar,
                                  WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSUBS(TileDataDst &dst, TileDataSrc &src0, typename TileDataSrc::DType scalar,
                                  WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMULS(TileDataDst &dst, TileDataSrc &src0, typename TileDataSrc::DType scalar,
                                  WaitEvents &...events);

// dst = src0 / scalar
template <auto PrecisionType = DivAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TDIVS(TileDataDst &dst, TileDataSrc &src0, typename TileDataSrc::DType scalar,
                                  WaitEvents &...events);

// dst = scalar / src0
template <auto PrecisionType = DivAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TDIVS(TileDataDst &dst, typename TileDataDst::DType scalar, TileDataSrc &src0,
                                  WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMINS(TileDataDst &dst, TileDataSrc &src, typename TileDataSrc::DType scalar,
                                  WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMAXS(TileDataDst &dst, TileDataSrc &src, typename TileDataSrc::DType scalar,
                                  WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TANDS(TileDataDst &dst, TileDataSrc &src, typename TileDataDst::DType scalar,
                                  WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TORS(TileDataDst &dst, TileDataSrc &src, typename TileDataDst::DType scalar,
                                 WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TXORS(TileDataDst &dst, TileDataSrc &src0, typename TileDataSrc::DType scalar,
                                  TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSHLS(TileDataDst &dst, TileDataSrc &src, typename TileDataDst::DType scalar,
                                  WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSHRS(TileDataDst &dst, TileDataSrc &src, typename TileDataDst::DType scalar,
                                  WaitEvents &...events);

template <auto PrecisionType = RemSAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc,
          typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TREMS(TileDataDst &dst, TileDataSrc &src, typename TileDataSrc::DType scalar,
                                  TileDataTmp &tmp, WaitEvents &...events);

template <auto PrecisionType = FmodSAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TFMODS(TileDataDst &dst, TileDataSrc &src, typename TileDataSrc::DType scalar,
                                   WaitEvents &...events);

template <auto PrecisionType = PowAlgorithm::DEFAULT, typename DstTile, typename BaseTile, typename TmpTile,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPOWS(DstTile &dst, BaseTile &base, typename DstTile::DType exp, TmpTile &tmp,
                                  WaitEvents &...events);

// Leaky relu with slope `scalar`.
template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TLRELU(TileDataDst &dst, TileDataSrc &src, typename TileDataSrc::DType scalar,
                                   WaitEvents &...events);

// dst = src0 * scalar + dst
template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TAXPY(TileDataDst &dst, TileDataSrc &src0, typename TileDataSrc::DType scalar,
                                  WaitEvents &...events);

template <typename TileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TADDSC(TileData &dst, TileData &src0, typename TileData::DType scalar, TileData &src1,
                                   WaitEvents &...events);

template <typename TileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSUBSC(TileData &dst, TileData &src0, typename TileData::DType scalar, TileData &src1,
                                   WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCMPS(TileDataDst &dst, TileDataSrc &src0, typename TileDataSrc::DType src1, CmpMode mode,
                                  WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS,
          detail::enable_if_t<is_tile_data_v<TileDataSrc1>, int> = 0>
PTOREWRITE_DECL RecordEvent TCMPS(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, CmpMode mode,
                                  WaitEvents &...events);

template <typename TileDataDst, typename TileDataMask, typename TileDataSrc, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSELS(TileDataDst &dst, TileDataMask &mask, TileDataSrc &src, TileDataTmp &tmp,
                                  typename TileDataSrc::DType scalar, WaitEvents &...events);

// Fill a tile with a scalar (Vec: PIPE_V; Mat: via MTE2).
template <typename TileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TEXPANDS(TileData &dst, typename TileData::DType scalar, WaitEvents &...events);

// ======================================================================================
// Vector: reductions (row reductions and arg-reductions take a scratch `tmp`)
// ======================================================================================

template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWSUM(TileDataOut &dst, TileDataIn &src, TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWPROD(TileDataOut &dst, TileDataIn &src, TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWMAX(TileDataOut &dst, TileDataIn &src, TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWMIN(TileDataOut &dst, TileDataIn &src, TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWARGMAX(TileDataOut &dst, TileDataIn &src, TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataOutVal, typename TileDataOutIdx, typename TileDataIn, typename TileDataTmp,
          PTOREWRITE_EVENTS, detail::enable_if_t<is_tile_data_v<TileDataTmp>, int> = 0>
PTOREWRITE_DECL RecordEvent TROWARGMAX(TileDataOutVal &dstVal, TileDataOutIdx &dstIdx, TileDataIn &src,
                                       TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWARGMIN(TileDataOut &dst, TileDataIn &src, TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataOutVal, typename TileDataOutIdx, typename TileDataIn, typename TileDataTmp,
          PTOREWRITE_EVENTS, detail::enable_if_t<is_tile_data_v<TileDataTmp>, int> = 0>
PTOREWRITE_DECL RecordEvent TROWARGMIN(TileDataOutVal &dstVal, TileDataOutIdx &dstIdx, TileDataIn &src,
                                       TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLSUM(TileDataOut &dst, TileDataIn &src, WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLSUM(TileDataOut &dst, TileDataIn &src, TileDataTmp &tmp, bool isBinary,
                                    WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLPROD(TileDataOut &dst, TileDataIn &src, WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLMAX(TileDataOut &dst, TileDataIn &src, WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLMIN(TileDataOut &dst, TileDataIn &src, WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLARGMAX(TileDataOut &dst, TileDataIn &src, TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataOut, typename TileDataIn, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLARGMIN(TileDataOut &dst, TileDataIn &src, TileDataTmp &tmp, WaitEvents &...events);

// Column arg-reductions that write both the extreme value and its index.
template <typename TileDataOutVal, typename TileDataOutIdx, typename TileDataIn, typename TileDataTmp,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLARGMAX(TileDataOutVal &dstVal, TileDataOutIdx &dstIdx, TileDataIn &src,
                                       TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataOutVal, typename TileDataOutIdx, typename TileDataIn, typename TileDataTmp,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLARGMIN(TileDataOutVal &dstVal, TileDataOutIdx &dstIdx, TileDataIn &src,
                                       TileDataTmp &tmp, WaitEvents &...events);

// ======================================================================================
// Vector: broadcasts. TROWEXPAND*(dst, src0, src1): src1 holds one value per row of src0;
// TCOLEXPAND*(dst, src0, src1): src1 holds one value per column.
// ======================================================================================

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPAND(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDADD(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDADD(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, TileDataTmp &tmp,
                                          WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDSUB(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDSUB(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, TileDataTmp &tmp,
                                          WaitEvents &...events);

// The implementation entry point some kernels call directly (same operands as TROWEXPANDSUB).
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1>
PTOREWRITE_DECL void TROWEXPANDSUB_IMPL(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1);
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp>
PTOREWRITE_DECL void TROWEXPANDSUB_IMPL(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, TileDataTmp &tmp);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDMUL(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDMUL(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, TileDataTmp &tmp,
                                          WaitEvents &...events);

template <auto PrecisionType = DivAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc0,
          typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDDIV(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);
template <auto PrecisionType = DivAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc0,
          typename TileDataSrc1, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDDIV(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, TileDataTmp &tmp,
                                          WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDMAX(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDMAX(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, TileDataTmp &tmp,
                                          WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDMIN(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDMIN(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, TileDataTmp &tmp,
                                          WaitEvents &...events);

// dst = exp(src0 - src1) per row (softmax helper).
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDEXPDIF(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                             WaitEvents &...events);
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TROWEXPANDEXPDIF(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                             TileDataTmp &tmp, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLEXPAND(TileDataDst &dst, TileDataSrc &src, WaitEvents &...events);
// The implementation entry point some a5 kernels call directly (same operands as TCOLEXPAND).
template <typename TileDataDst, typename TileDataSrc>
PTOREWRITE_DECL void TCOLEXPAND_IMPL(TileDataDst &dst, TileDataSrc &src);

// Interleave two sources element by element into two destinations (dst1 takes the high half),
// and the inverse; TDEINTERLEAVE also splits one source.
template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TINTERLEAVE(TileDataDst &dst1, TileDataDst &dst0, TileDataSrc &src1, TileDataSrc &src0,
                                        WaitEvents &...events);
template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TDEINTERLEAVE(TileDataDst &dst1, TileDataDst &dst0, TileDataSrc &src1,
                                          TileDataSrc &src0, WaitEvents &...events);
template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TDEINTERLEAVE(TileDataDst &dst1, TileDataDst &dst0, TileDataSrc &src,
                                          WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLEXPANDADD(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLEXPANDSUB(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLEXPANDMUL(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);

template <auto PrecisionType = DivAlgorithm::DEFAULT, typename TileDataDst, typename TileDataSrc0,
          typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLEXPANDDIV(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLEXPANDMAX(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLEXPANDMIN(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                          WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCOLEXPANDEXPDIF(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                             WaitEvents &...events);

// ======================================================================================
// Vector: layout, gather/scatter, sort, padding, index generation
// ======================================================================================

template <typename TileDataDst, typename TileDataSrc, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TTRANS(TileDataDst &dst, TileDataSrc &src, TileDataTmp &tmp, WaitEvents &...events);

// Gather src0 elements at the indices in src1.
template <typename TileDataD, typename TileDataS0, typename TileDataS1, typename TileDataTmp, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGATHER(TileDataD &dst, TileDataS0 &src0, TileDataS1 &src1, TileDataTmp &tmp,
                                    WaitEvents &...events);

// Compare-and-gather (top-k style) with a compile-time comparison.
template <typename TileDataD, typename TileDataS, typename TileDataS1, typename TileDataC, typename TileDataTmp,
          CmpMode cmpMode, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGATHER(TileDataD &dst, TileDataS &src0, TileDataS1 &k_value, TileDataC &cdst,
                                    TileDataTmp &tmp, int offset, WaitEvents &...events);

// Gather by a fixed bit pattern, along rows (default) or columns.
template <typename DstTileData, typename SrcTileData, MaskPattern maskPattern, auto gatherType = GatherAxis::GATHER_ROW,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGATHER(DstTileData &dst, SrcTileData &src, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, typename TileDataOffset, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGATHERB(TileDataDst &dst, TileDataSrc &src, TileDataOffset &offset,
                                     WaitEvents &...events);

template <typename TileDataD, typename TileDataS, typename TileDataI, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSCATTER(TileDataD &dst, TileDataS &src, TileDataI &indexes, WaitEvents &...events);

// Scatter by a fixed bit pattern, along rows (default) or columns.
template <MaskPattern maskPattern = MaskPattern::P1111, auto ScatterType = ScatterAxis::SCATTER_ROW,
          typename DstTileData, typename SrcTileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSCATTER(DstTileData &dst, SrcTileData &src, WaitEvents &...events);

// TSORT32 takes no events in pto-isa (callers TSYNC explicitly).
template <typename DstTileData, typename SrcTileData, typename IdxTileData>
PTOREWRITE_DECL RecordEvent TSORT32(DstTileData &dst, SrcTileData &src, IdxTileData &idx);

template <typename DstTileData, typename SrcTileData, typename IdxTileData, typename TmpTileData>
PTOREWRITE_DECL RecordEvent TSORT32(DstTileData &dst, SrcTileData &src, IdxTileData &idx, TmpTileData &tmp);

// Merge 2..4 sorted lists; `exhausted` is explicit, so callers spell all template args.
template <typename DstTileData, typename TmpTileData, typename Src0TileData, typename Src1TileData,
          typename Src2TileData, typename Src3TileData, bool exhausted, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMRGSORT(DstTileData &dst, MrgSortExecutedNumList &executedNumList, TmpTileData &tmp,
                                     Src0TileData &src0, Src1TileData &src1, Src2TileData &src2, Src3TileData &src3,
                                     WaitEvents &...events);

template <typename DstTileData, typename TmpTileData, typename Src0TileData, typename Src1TileData,
          typename Src2TileData, bool exhausted, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMRGSORT(DstTileData &dst, MrgSortExecutedNumList &executedNumList, TmpTileData &tmp,
                                     Src0TileData &src0, Src1TileData &src1, Src2TileData &src2,
                                     WaitEvents &...events);

template <typename DstTileData, typename TmpTileData, typename Src0TileData, typename Src1TileData, bool exhausted,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMRGSORT(DstTileData &dst, MrgSortExecutedNumList &executedNumList, TmpTileData &tmp,
                                     Src0TileData &src0, Src1TileData &src1, WaitEvents &...events);

// Merge sorted blocks of length blockLen inside one tile.
template <typename DstTileData, typename SrcTileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMRGSORT(DstTileData &dst, SrcTileData &src, uint32_t blockLen, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCONCAT(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

template <typename DstTile, typename Src0Tile, typename Src1Tile, typename Src0IdxTile, typename Src1IdxTile,
          PTOREWRITE_EVENTS,
          detail::enable_if_t<is_tile_data_v<Src0IdxTile> && is_tile_data_v<Src1IdxTile>, int> = 0>
PTOREWRITE_DECL RecordEvent TCONCAT(DstTile &dst, Src0Tile &src0, Src1Tile &src1, Src0IdxTile &src0Idx,
                                    Src1IdxTile &src1Idx, WaitEvents &...events);

// The implementation entry points some kernels call directly (same operands as TCONCAT).
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1>
PTOREWRITE_DECL void TCONCAT_IMPL(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1);

template <typename DstTile, typename Src0Tile, typename Src1Tile, typename Src0IdxTile, typename Src1IdxTile>
PTOREWRITE_DECL void TCONCAT_IMPL(DstTile &dst, Src0Tile &src0, Src1Tile &src1, Src0IdxTile &src0Idx,
                                  Src1IdxTile &src1Idx);

template <typename DstTile, typename Src0Tile, typename Src1Tile, typename DstIdxTile, typename Src0IdxTile,
          typename Src1IdxTile>
PTOREWRITE_DECL void TCONCAT_IMPL(DstTile &dst, Src0Tile &src0, Src1Tile &src1, DstIdxTile &dstIdx,
                                  Src0IdxTile &src0Idx, Src1IdxTile &src1Idx);

// Concatenation that also writes the index of every output element.
template <typename DstTile, typename Src0Tile, typename Src1Tile, typename DstIdxTile, typename Src0IdxTile,
          typename Src1IdxTile, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCONCAT(DstTile &dst, Src0Tile &src0, Src1Tile &src1, DstIdxTile &dstIdx,
                                    Src0IdxTile &src0Idx, Src1IdxTile &src1Idx, WaitEvents &...events);

// Fill the area outside the valid region with the tile's PadVal (Mat tiles) / dst's (Vec).
template <typename TileData, PadValue PadVal = PadValue::Zero,
          detail::enable_if_t<(TileData::Loc == TileType::Mat), int> = 0, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TFILLPAD(TileData &dst, TileData &src, WaitEvents &...events);

// The mode selects TFILLPAD_INPLACE / TFILLPAD_EXPAND through the one name.
template <TFillPadMode mode = TFillPadMode::Normal, typename DstTileData, typename SrcTileData,
          detail::enable_if_t<(DstTileData::Loc == TileType::Vec) && (SrcTileData::Loc == TileType::Vec), int> = 0,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TFILLPAD(DstTileData &dst, SrcTileData &src, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TFILLPAD_INPLACE(DstTileData &dst, SrcTileData &src, WaitEvents &...events);

template <typename DstTileData, typename SrcTileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TFILLPAD_EXPAND(DstTileData &dst, SrcTileData &src, WaitEvents &...events);

// Index sequence start, start+1, ... (or descending).
template <typename TileData, typename T, int descending, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCI(TileData &dst, T start, WaitEvents &...events);

template <typename TileData, typename TileDataTmp, typename T, int descending, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TCI(TileData &dst, T start, TileDataTmp &tmp, WaitEvents &...events);

// Triangular mask.
template <typename TileData, int isUpperOrLower, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TTRI(TileData &dst, int diagonal, WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc, typename TileDataPara, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TDEQUANT(TileDataDst &dst, TileDataSrc &src, TileDataPara &scale, TileDataPara &offset,
                                     WaitEvents &...events);

template <auto quant_type, typename TileDataOut, typename TileDataSrc, typename TileDataPara, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TQUANT(TileDataOut &dst, TileDataSrc &src, TileDataPara &scale,
                                   TileDataPara *offset = nullptr, WaitEvents &...events);

// With a scratch tile for the row-wise broadcast of scale and offset (a2a3).
template <auto quant_type, typename TileDataOut, typename TileDataSrc, typename TileDataPara, typename TileDataTmp,
          PTOREWRITE_EVENTS, detail::enable_if_t<is_tile_data_v<TileDataTmp>, int> = 0>
PTOREWRITE_DECL RecordEvent TQUANT(TileDataOut &dst, TileDataSrc &src, TileDataPara &scale, TileDataTmp &tmp,
                                   TileDataPara *offset = nullptr, WaitEvents &...events);

#ifdef PTO_NPU_ARCH_A5
// MX quantisation: dst gets the scaled elements; exp, max and scaling receive each group's shared
// exponent, its absolute maximum and its scale factor.
template <auto quant_type, typename TileDataOut, typename TileDataSrc, typename TileDataExp, typename TileDataMax,
          typename TileDataScaling, auto scale_alg = QuantScaleAlg::OCP, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TQUANT(TileDataOut &dst, TileDataSrc &src, TileDataExp *exp, TileDataMax *max,
                                   TileDataScaling *scaling, WaitEvents &...events);

// Same, also writing the exponents in ZZ order to exp_zz; store_mode picks the element layout.
template <auto quant_type, auto store_mode, typename TileDataOut, typename TileDataSrc, typename TileDataExp,
          typename TileDataMax, typename TileDataScaling, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TQUANT(TileDataOut &dst, TileDataSrc &src, TileDataExp *exp, TileDataMax *max,
                                   TileDataScaling *scaling, TileDataExp *exp_zz, WaitEvents &...events);

// MX quantisation along a chosen group axis (0: down the columns) with one MxQuantAlg tag;
// `interleave` selects the interleaved exponent layout.
template <int grp_axis, auto mx_alg, typename TileDataOut = void, typename TileDataSrc = void,
          typename TileDataExp = void, typename TileDataMax = void, typename TileDataScaling = void, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TQUANT(TileDataOut &dst, TileDataSrc &src, TileDataExp *exp, TileDataMax *max,
                                   TileDataScaling *scaling, WaitEvents &...events);

template <int grp_axis, auto mx_alg, bool interleave, typename TileDataOut = void, typename TileDataSrc = void,
          typename TileDataExp = void, typename TileDataMax = void, typename TileDataScaling = void, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TQUANT(TileDataOut &dst, TileDataSrc &src, TileDataExp *exp, TileDataMax *max,
                                   TileDataScaling *scaling, WaitEvents &...events);
#endif

template <typename TileDataOut, typename TileDataIn, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGET_SCALE_ADDR(TileDataOut &dst, TileDataIn &src, WaitEvents &...events);

template <HistByte byte, typename TileDataDst, typename TileDataSrc, typename TileDataIdx, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent THISTOGRAM(TileDataDst &dst, TileDataSrc &src, TileDataIdx &idx, WaitEvents &...events);

template <uint16_t Rounds = 10, typename DstTile, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TRANDOM(DstTile &dst, TRandomKey &key, TRandomCounter &counter, WaitEvents &...events);

// ======================================================================================
// Aliasing views (scalar unit, no data movement)
// ======================================================================================

// dst becomes a differently-shaped view of src's bytes.
template <typename TileDataOut, typename TileDataIn, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TRESHAPE(TileDataOut &dst, TileDataIn &src, WaitEvents &...events);

// dst views src starting at element (rowIdx, colIdx).
template <typename TileDataDst, typename TileDataSrc, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSUBVIEW(TileDataDst &dst, TileDataSrc &src, uint16_t rowIdx, uint16_t colIdx,
                                     WaitEvents &...events);

// ======================================================================================
// Cross-core FIFOs (cube <-> vector). `check` models the a5 tile forms (parse/fifo.py).
// ======================================================================================

template <typename Pipe, typename TileProd, TileSplitAxis Split, detail::enable_if_t<is_tile_data_v<TileProd>, int> = 0,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPUSH(Pipe &pipe, TileProd &tile, WaitEvents &...events);

// The pushing vector core's subblock given explicitly instead of read from the core.
template <typename Pipe, typename TileProd, TileSplitAxis Split, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPUSH(Pipe &pipe, TileProd &tile, int32_t subBlockId, WaitEvents &...events);

template <typename TileData, typename Pipe, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPUSH(TileData &tile, Pipe &pipe, WaitEvents &...events);

template <typename Pipe, typename GlobalData, TileSplitAxis Split,
          detail::enable_if_t<is_global_data_v<GlobalData>, int> = 0, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPUSH(Pipe &pipe, GlobalData &gmTensor, WaitEvents &...events);

// The accumulator converted by the fixpipe on its way into the slot, as the FixpipeParams type
// `Config` says (output type, layout, quantization; a per-channel quantization reads the Scaling
// tile SET_QUANT_VECTOR named last).
template <typename Pipe, typename TileProd, typename Config, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPUSH(Pipe &pipe, TileProd &tile, WaitEvents &...events);

template <typename Pipe, typename TileCons, TileSplitAxis Split, detail::enable_if_t<is_tile_data_v<TileCons>, int> = 0,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPOP(Pipe &pipe, TileCons &tile, WaitEvents &...events);

template <typename Pipe, typename TileCons, TileSplitAxis Split, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPOP(Pipe &pipe, TileCons &tile, int32_t subBlockId, WaitEvents &...events);

template <typename TileData, typename Pipe, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPOP(TileData &tile, Pipe &pipe, WaitEvents &...events);

template <typename Pipe, typename GlobalData, TileSplitAxis Split,
          detail::enable_if_t<is_global_data_v<GlobalData>, int> = 0, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPOP(Pipe &pipe, GlobalData &gmTensor, WaitEvents &...events);

template <typename Pipe, TileSplitAxis Split, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TFREE(Pipe &pipe, WaitEvents &...events);

template <typename Pipe, typename GlobalData, TileSplitAxis Split,
          detail::enable_if_t<is_global_data_v<GlobalData>, int> = 0, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TFREE(Pipe &pipe, GlobalData &gmTensor, WaitEvents &...events);

template <typename Pipe, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TFREE(Pipe &pipe, WaitEvents &...events);

template <typename Pipe, typename GlobalData, TileSplitAxis Split,
          detail::enable_if_t<is_global_data_v<GlobalData>, int> = 0, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TALLOC(Pipe &pipe, GlobalData &gmTensor, WaitEvents &...events);

// Inter-card communication (TPUT, TGET, TNOTIFY, TWAIT, ...) lives in namespace pto::comm:
// pto/comm/pto_comm_inst.hpp.


// ======================================================================================
// Vector: fused and paired arithmetic
// ======================================================================================

// dst = relu(src0 + src1) / relu(src0 - src1) (the *CONV forms for convolution outputs).
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TADDRELUCONV(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                         WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSUBRELUCONV(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                         WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TSUBRELU(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, WaitEvents &...events);

// Multiply-add forms that read the destination as their third operand.
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TFUSEDMULADD(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                         WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TFUSEDMULADDRELU(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                             WaitEvents &...events);

template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TMULADDDST(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1,
                                       WaitEvents &...events);

// Sum of adjacent element pairs.
template <typename TileDataDst, typename TileDataSrc0, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPAIRREDUCESUM(TileDataDst &dst, TileDataSrc0 &src0, WaitEvents &...events);

// relu((src0 + src1) * deqScale), with a scratch tile.
template <typename TileDataDst, typename TileDataSrc0, typename TileDataSrc1, typename TileDataTmp,
          PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TADDDEQRELU(TileDataDst &dst, TileDataSrc0 &src0, TileDataSrc1 &src1, float deqScale,
                                        TileDataTmp &tmp, WaitEvents &...events);

} // namespace pto

#endif // PTOREWRITE_PTO_INSTR_HPP
