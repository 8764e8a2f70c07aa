// ptorewrite parse-only headers: the cross-core signalling helpers pto-isa keeps under
// pto/npu/<arch>/custom (flag objects a cube core and a vector core share, the slot a core
// takes in a shared communication buffer). The front end lowers the flag objects itself
// (parse/mpipe.py); these declarations let kernels that use them parse.
#ifndef PTOREWRITE_PTO_CROSS_CORE_SYNC_HPP
#define PTOREWRITE_PTO_CROSS_CORE_SYNC_HPP

#include <pto/common/type.hpp>

namespace pto {

constexpr int kCvCommSlotBytes = 64;
constexpr int kCvMaxCores = 25;

// Who takes part in a cross-core barrier.
enum CVSyncMode : uint16_t { C_ALL_CORE_SYNC = 0, V_ALL_CORE_SYNC = 0, V_SUBCORES_SYNC = 1, CV_CORE_SYNC = 2 };

// The ffts configuration word: count base in bits 0..3, mode in bits 4..5, flag id in bits 8..11.
PTO_INTERNAL constexpr uint16_t _getFFTSMsg(CVSyncMode mode, uint16_t flagId, uint16_t baseConst = 0x1)
{
    return (uint16_t)((baseConst & 0xf) + ((mode & 0x3) << 4) + ((flagId & 0xf) << 8));
}

// The slot of this core in a buffer shared by the cube and vector cores.
template <int SlotBytes = kCvCommSlotBytes, int MaxCores = kCvMaxCores>
AICORE int TSYNC_CVID(int blockIdx, __gm__ uint8_t *commBuffer);

// Which operation produces and which consumes across the two core types.
enum class SyncOpType : uint8_t {
    TSTORE_C2GM,
    TSTORE_V2GM,
    TMOV_C2UB,
    TINSERT_V2L1,
    TLOAD,
    TEXTRACT,
    TMOV,
};

// A cross-core flag: `record` on the producer core, `wait` on the consumer core; `allocate`
// and `free` return the buffer to the producer.
template <SyncOpType ProducerOp, SyncOpType ConsumerOp>
struct TSync_Custom {
    uint16_t flag_id;
    AICORE void record() const;
    AICORE void wait() const;
    AICORE void allocate() const;
    AICORE void free() const;
};

} // namespace pto

#endif // PTOREWRITE_PTO_CROSS_CORE_SYNC_HPP
