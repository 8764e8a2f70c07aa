// ptorewrite parse-only headers: pto's event-based synchronisation surface.
//
// In AUTO mode (__PTO_AUTO__) Event<>, TSYNC and PtoSetWaitFlag compile to nothing; in
// manual mode an Event carries a flag id between two instructions. Only the shapes kernels
// write are declared here: `Event<Op::A, Op::B> e = TLOAD(...); TADD(d, a, b, e);`.
#ifndef PTOREWRITE_PTO_EVENT_HPP
#define PTOREWRITE_PTO_EVENT_HPP

#include <pto/common/type.hpp>

namespace pto {

// Instruction classes an Event connects (its pipe pair is derived from them).
enum class Op : uint16_t {
    TLOAD,
    TSTORE_VEC,
    SCALAR,
    TRESHAPE,
    VECTOR,
    TADD,
    TADDS,
    TAXPY,
    TSUB,
    TMUL,
    TMULS,
    TDIV,
    TDIVS,
    TMIN,
    TMINS,
    TMAX,
    TAND,
    TOR,
    TSEL,
    TSHL,
    TSHR,
    TEXP,
    TSELS,
    TSQRT,
    TRSQRT,
    TEXPANDS,
    TEXPANDS_MAT,
    TPARTADD,
    TPARTMUL,
    TPARTMAX,
    TPARTMIN,
    TPOW,
    TPOWS,
    TCMPS,
    TMRGSORT,
    TSORT32,
    TCI,
    TGATHER,
    TGATHERB,
    TCVT,
    TROWSUM,
    TROWPROD,
    TROWMAX,
    TROWMIN,
    TROWEXPAND,
    TRANDOM,
    TCOLSUM,
    TCOLPROD,
    TCOLMAX,
    TCOLMIN,
    TTRANS,
    TTRI,
    TREM,
    TFMOD,
    TREMS,
    TFMODS,
    TSUBS,
    TMAXS,
    TLRELU,
    TPRELU,
    TMOV_V2V,
    TMOV_V2M,
    TEXTRACT_V2M,
    TMOV_M2B,
    TMOV_M2L,
    TMOV_M2R,
    TMOV_M2S,
    TMOV_A2V,
    TMOV_A2M,
    TSTORE_ACC,
    TSTORE_MAT,
    TMATMUL,
    TGEMV,
    TEXTRACT_M2LR,
    TANDS,
    TORS,
    TSHLS,
    TSHRS,
    TXOR,
    TXORS,
    TEXTRACT_A2M,
    TINSERT_A2M,
    TIMG2COL,
    SETFMATRIX,
    SET_IMG2COL_RPT,
    SET_IMG2COL_PADDING,
    TCONCAT,
    TDEQUANT,
    TADDDEQRELU,
    TABS,
    TNEG,
    TRELU,
    TNOT,
    TLOG,
    TRECIP,
    TCMP,
    TSCATTER,
    TCOLEXPAND,
    TCOLEXPANDDIV,
    TCOLEXPANDMUL,
    TCOLEXPANDADD,
    TCOLEXPANDMAX,
    TCOLEXPANDMIN,
    TCOLEXPANDSUB,
    TCOLEXPANDEXPDIF,
    TROWEXPANDDIV,
    TROWEXPANDMUL,
    TROWEXPANDSUB,
    TROWEXPANDADD,
    TROWEXPANDMAX,
    TROWEXPANDMIN,
    TROWEXPANDEXPDIF,
    TPAIRREDUCESUM,
    TSUBRELUCONV,
    TADDRELUCONV,
    TFUSEDMULADD,
    TMULADDDST,
    TSUBRELU,
    TFUSEDMULADDRELU,
    TPARTARGMAX,
    TPARTARGMIN,
    TCOLARGMAX,
    TCOLARGMIN,
    TROWARGMAX,
    TROWARGMIN,
    TPREFETCH,
    TFILLPAD_VEC,
    TFILLPAD_MAT,
    MGATHER_VEC,
    MGATHER_MAT,
    MSCATTER,
    TQUANT,
    THISTOGRAM,
    TINTERLEAVE,
    TDEINTERLEAVE,
    OP_COUNT,
};

// What every instruction returns; assigning it to an Event records that event.
struct RecordEvent {};

struct EventBaseTag {};

template <typename T>
struct is_event : detail::integral_constant<bool, __is_base_of(EventBaseTag, T)> {};

template <typename... Ts>
inline constexpr bool all_events_v = (is_event<detail::remove_cv_t<Ts>>::value && ...);

// Event<SrcOp, DstOp>: a one-shot dependence from an instruction of class SrcOp to a later
// one of class DstOp. Pass it as a trailing argument of the consumer, or TSYNC(e).
template <Op SrcOp, Op DstOp, bool AutoToken = true, event_t EventID = EVENT_ID0>
struct Event : EventBaseTag {
    static constexpr Op srcOp = SrcOp;
    static constexpr Op dstOp = DstOp;

    AICORE Event() {}
    AICORE Event(RecordEvent) {}
    AICORE Event &operator=(RecordEvent) { return *this; }

    template <uint8_t CrossCoreId = 0xff>
    AICORE Event &Wait()
    {
        return *this;
    }
    template <uint8_t CrossCoreId = 0xff>
    AICORE Event &Init()
    {
        return *this;
    }
    template <uint8_t CrossCoreId = 0xff>
    AICORE Event &Record()
    {
        return *this;
    }
    AICORE Event &InitAddr(uint64_t fftsAddr) { return (void)fftsAddr, *this; }
};

// set_flag + wait_flag on one pipe pair, back to back (a full hand-off).
template <pipe_t SrcPipe, pipe_t DstPipe>
PTO_INTERNAL void PtoSetWaitFlag(event_t SetEventId = EVENT_ID0, event_t WaitEventId = EVENT_ID0)
{
#ifndef __PTO_AUTO__
    set_flag(SrcPipe, DstPipe, SetEventId);
    wait_flag(SrcPipe, DstPipe, WaitEventId);
#else
    (void)SetEventId, (void)WaitEventId;
#endif
}

// The configuration word ffts_cross_core_sync takes: a count base (bits 0..3), a mode (which
// cores the flag reaches, bits 4..5) and a flag id (bits 8..11).
PTO_INTERNAL constexpr uint16_t getFFTSMsg(uint16_t mode, uint16_t eventId, uint16_t baseConst = 0x1)
{
    return (uint16_t)((baseConst & 0xf) + ((mode & 0x3) << 4) + ((eventId & 0xf) << 8));
}

} // namespace pto

#endif // PTOREWRITE_PTO_EVENT_HPP
