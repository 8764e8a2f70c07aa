// ptorewrite parse-only headers: the value types of pto-isa's inter-card communication
// instructions (signals, groups of per-rank tensors, operation selectors, async handles).
#ifndef PTOREWRITE_COMM_TYPES_HPP
#define PTOREWRITE_COMM_TYPES_HPP

#include <pto/pto-inst.hpp>

namespace pto {
namespace comm {

// How TNOTIFY changes the remote signal, and how TWAIT / TTEST compare it.
enum class NotifyOp : uint8_t { AtomicAdd = 0, Set = 1 };
enum class WaitCmp : uint8_t { EQ = 0, NE = 1, GT = 2, GE = 3, LT = 4, LE = 5 };
enum class ReduceOp : uint8_t { Sum = 0, Max = 1, Min = 2 };
// Engines: the DMA engine behind TPUT_ASYNC / TGET_ASYNC, the one behind collectives.
enum class DmaEngine : uint8_t { SDMA = 0, URMA = 1, RDMA = 2 };
enum class CollEngine : uint8_t { AIV = 0, CCU = 1 };

// One GlobalTensor per rank of a communication group.
template <typename GlobalData>
struct ParallelGroup {
    using value_type = GlobalData;
    GlobalData *tensors = nullptr;
    int size = 0;
    int root = 0;
    AICORE ParallelGroup() = default;
    AICORE ParallelGroup(GlobalData *perRank, int nranks, int rootRank) : tensors(perRank), size(nranks), root(rootRank) {}
    AICORE GlobalData &operator[](int rank) { return tensors[rank]; }
    AICORE int GetSize() const { return size; }
    AICORE int GetRootIdx() const { return root; }
};

// A single int32 flag in GM, and a Rows x Cols grid of them (dense, or with a row pitch).
using Signal = GlobalTensor<int32_t, Shape<1, 1, 1, 1, 1>, Stride<1, 1, 1, 1, 1>, Layout::ND>;

template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
using GlobalSignal = GlobalTensor<Element_, Shape_, Stride_, Layout_>;

template <int Rows, int Cols>
struct Signal2D : GlobalTensor<int32_t, Shape<1, 1, 1, Rows, Cols>, Stride<1, 1, 1, DYNAMIC, 1>, Layout::ND> {
    using Base = GlobalTensor<int32_t, Shape<1, 1, 1, Rows, Cols>, Stride<1, 1, 1, DYNAMIC, 1>, Layout::ND>;
    AICORE explicit Signal2D(__gm__ int32_t *flags) : Base(flags) {}
    AICORE Signal2D(__gm__ int32_t *flags, int rowPitch) : Base(flags) { (void)rowPitch; }
};

// Handle of an asynchronous transfer and the per-engine state it is waited on with.
struct AsyncSession {
    DmaEngine engine = DmaEngine::SDMA;
};

struct AsyncEvent {
    uint64_t handle = 0;
    DmaEngine engine = DmaEngine::SDMA;
    AICORE constexpr AsyncEvent() = default;
    AICORE constexpr AsyncEvent(uint64_t h, DmaEngine e) : handle(h), engine(e) {}
    AICORE constexpr bool valid() const { return handle != 0; }
    AICORE bool Wait(const AsyncSession &session) const;
    AICORE bool Test(const AsyncSession &session) const;
};

} // namespace comm
} // namespace pto

#define PTOREWRITE_COMM_TYPES_COMPLETE
#include <pto/common/prefetch_async.hpp>  // uses the async handles above

#endif // PTOREWRITE_COMM_TYPES_HPP
