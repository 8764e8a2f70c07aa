// ptorewrite parse-only declarations: the constants and transfer settings of pto-isa's SDMA
// (system DMA) asynchronous communication, as its kernels name them. Values only.
#pragma once

#include <stdint.h>

namespace pto {
namespace comm {
namespace sdma {
constexpr uint32_t kSdmaMaxChannel = 48U;        // SDMA queues a card offers
constexpr uint32_t kSdmaMinTransferBytes = 64U;  // the smallest piece a queue moves
constexpr uint32_t SDMA_MAX_CHAN = kSdmaMaxChannel;
constexpr uint32_t UB_ALIGN_SIZE = 256U;         // the UB scratch an SDMA session needs, in bytes

// How one asynchronous transfer is cut into queue entries.
struct SdmaBaseConfig {
    uint64_t block_bytes;
    uint64_t comm_block_offset;
    uint32_t queue_num;
};
} // namespace sdma
} // namespace comm
} // namespace pto
