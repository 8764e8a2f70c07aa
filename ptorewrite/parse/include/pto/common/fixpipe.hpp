// ptorewrite parse-only headers: the fixpipe configuration some instructions take as a type
// (TPUSH<Pipe, AccTile, Config> on a cube-to-vector FIFO converts the accumulator on its way out).
#ifndef PTOREWRITE_PTO_FIXPIPE_HPP
#define PTOREWRITE_PTO_FIXPIPE_HPP

#include <pto/ptorewrite_arch.hpp>
#include <pto/common/type.hpp>

namespace pto {

// Whether the fixpipe clips values after its ReLU.
typedef enum { NOCLIP_RELU = 0, CLIP_RELU = 1 } ClipReluMode_t;

// The layout the fixpipe writes: fractal as in L0C, row-major rows, or column-major columns.
enum class LayoutMode_t : uint8_t {
    NZ2NZ = 0,
    NZ2ND = 1,
    NZ2DN = 2,
};

// One scale for every channel, or a tensor of per-channel scales.
enum class DequantType { SCALAR = 0, TENSOR = 1 };

// Every fixpipe setting in one type; each parameter is a static member of the same meaning.
template <LayoutMode_t Layout_ = LayoutMode_t::NZ2ND, QuantMode_t Quant_ = QuantMode_t::NoQuant,
          ReluPreMode Relu_ = ReluPreMode::NoRelu, STPhase Phase_ = STPhase::Unspecified, uint8_t SubBlock_ = 0,
          AtomicType Atomic_ = AtomicType::AtomicNone, ClipReluMode_t Clip_ = ClipReluMode_t::NOCLIP_RELU,
          bool ChannelSplit_ = false>
struct FixpipeParams {
    static constexpr LayoutMode_t LayoutMode = Layout_;
    static constexpr QuantMode_t QuantPre = Quant_;
    static constexpr ReluPreMode ReluMode = Relu_;
    static constexpr STPhase Phase = Phase_;
    static constexpr uint8_t SubBlockId = SubBlock_;
    static constexpr AtomicType AtomicT = Atomic_;
    static constexpr ClipReluMode_t ClipReluMode = Clip_;
    static constexpr bool IsChannelSplit = ChannelSplit_;
};

} // namespace pto

#endif // PTOREWRITE_PTO_FIXPIPE_HPP
