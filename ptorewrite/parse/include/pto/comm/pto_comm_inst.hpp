// ptorewrite parse-only headers: pto-isa's inter-card communication instructions (namespace
// pto::comm). Bodiless like every bundled instruction; the front end lowers TPUT / TGET to the
// staging-tile copies and flags they run on this core, TNOTIFY to its closing PIPE_ALL
// barrier, and TWAIT / TTEST to nothing on the pipes (docs/design.md, "Communication").
#ifndef PTOREWRITE_PTO_COMM_INST_HPP
#define PTOREWRITE_PTO_COMM_INST_HPP

#include <pto/pto-inst.hpp>
#include <pto/comm/comm_types.hpp>

namespace pto {
namespace comm {

// Remote write: src (this card's GM) -> staging tile in UB -> dst (a peer's GM), chunk by chunk.
template <AtomicType atomicType = AtomicType::AtomicNone, typename GlobalDstData, typename GlobalSrcData,
          typename TileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPUT(GlobalDstData &dstGlobalData, GlobalSrcData &srcGlobalData,
                                 TileData &stagingTileData, WaitEvents &...events);
// The atomic mode chosen at run time.
template <typename GlobalDstData, typename GlobalSrcData, typename TileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPUT(GlobalDstData &dstGlobalData, GlobalSrcData &srcGlobalData,
                                 TileData &stagingTileData, AtomicType atomicType, WaitEvents &...events);
// Two staging tiles: the load of one chunk overlaps the store of the previous one.
template <AtomicType atomicType = AtomicType::AtomicNone, typename GlobalDstData, typename GlobalSrcData,
          typename TileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TPUT(GlobalDstData &dstGlobalData, GlobalSrcData &srcGlobalData, TileData &pingTile,
                                 TileData &pongTile, WaitEvents &...events);

// Remote read: src (a peer's GM) -> staging tile -> dst (this card's GM).
template <typename GlobalDstData, typename GlobalSrcData, typename TileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGET(GlobalDstData &dstGlobalData, GlobalSrcData &srcGlobalData,
                                 TileData &stagingTileData, WaitEvents &...events);
template <typename GlobalDstData, typename GlobalSrcData, typename TileData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL RecordEvent TGET(GlobalDstData &dstGlobalData, GlobalSrcData &srcGlobalData, TileData &pingTile,
                                 TileData &pongTile, WaitEvents &...events);

// Signals: set or add to a peer's int32 flag; spin until (TWAIT) or test whether (TTEST) every
// flag of a signal compares true against a value.
template <typename GlobalSignalData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL void TNOTIFY(GlobalSignalData &dstSignalData, int32_t value, NotifyOp op, WaitEvents &...events);
template <typename GlobalSignalData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL void TWAIT(GlobalSignalData &signalData, int32_t cmpValue, WaitCmp cmp, WaitEvents &...events);
template <typename GlobalSignalData, PTOREWRITE_EVENTS>
PTOREWRITE_DECL bool TTEST(GlobalSignalData &signalData, int32_t cmpValue, WaitCmp cmp, WaitEvents &...events);

// Collectives over a ParallelGroup (run by the root) and GM-to-GM transfers on a DMA engine.
// Declared so kernels parse; the front end refuses a kernel that runs one.
template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalDstData,
          typename TileData, typename... Args>
PTOREWRITE_DECL RecordEvent TGATHER(ParallelGroupType &parallelGroup, GlobalDstData &dstGlobalData,
                                    TileData &stagingTileData, Args &...args);
template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalSrcData,
          typename TileData, typename... Args>
PTOREWRITE_DECL RecordEvent TSCATTER(ParallelGroupType &parallelGroup, GlobalSrcData &srcGlobalData,
                                     TileData &stagingTileData, Args &...args);
template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalSrcData,
          typename TileData, typename... Args>
PTOREWRITE_DECL RecordEvent TBROADCAST(ParallelGroupType &parallelGroup, GlobalSrcData &srcGlobalData,
                                       TileData &stagingTileData, Args &...args);
template <CollEngine engine = CollEngine::AIV, typename ParallelGroupType, typename GlobalDstData,
          typename TileData, typename... Args>
PTOREWRITE_DECL RecordEvent TREDUCE(ParallelGroupType &parallelGroup, GlobalDstData &dstGlobalData,
                                    TileData &accTileData, TileData &recvTileData, Args &...args);
template <DmaEngine engine = DmaEngine::SDMA, typename GlobalDstData, typename GlobalSrcData, typename... Args>
PTOREWRITE_DECL AsyncEvent TPUT_ASYNC(GlobalDstData &dstGlobalData, GlobalSrcData &srcGlobalData, Args &&...args);
template <DmaEngine engine = DmaEngine::SDMA, typename GlobalDstData, typename GlobalSrcData, typename... Args>
PTOREWRITE_DECL AsyncEvent TGET_ASYNC(GlobalDstData &dstGlobalData, GlobalSrcData &srcGlobalData, Args &&...args);

} // namespace comm
} // namespace pto

#endif // PTOREWRITE_PTO_COMM_INST_HPP
