// ptorewrite parse-only headers: enumerations and small type utilities of the pto API.
// Enumerator names (and, where kernels may depend on them, values) follow pto-isa.
#ifndef PTOREWRITE_PTO_TYPE_HPP
#define PTOREWRITE_PTO_TYPE_HPP

#include <pto/ptorewrite_arch.hpp>

// Real pto-isa pulls the standard library in transitively (and fifo.hpp even opens
// namespace std globally), so kernels routinely use std names without including anything.
// Mirror that when a standard library is reachable; our own code never depends on it.
// <stddef.h> comes from the compiler's resource directory, which the libclang wheel does
// not ship; without it <cstddef> cannot be parsed, so its presence gates the whole block.
#if defined(__has_include)
#if __has_include(<stddef.h>) && __has_include(<type_traits>) && __has_include(<cstdint>) && \
    __has_include(<utility>) && __has_include(<array>) && !defined(PTOREWRITE_NO_STDLIB)
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
using namespace std;
#define PTOREWRITE_HAVE_STDLIB 1
#endif
#endif

namespace pto {

// Self-contained traits, so the headers parse even with -nostdinc++.
namespace detail {
template <bool B, typename T = void>
struct enable_if {};
template <typename T>
struct enable_if<true, T> {
    using type = T;
};
template <bool B, typename T = void>
using enable_if_t = typename enable_if<B, T>::type;

template <bool B, typename T, typename F>
struct conditional {
    using type = T;
};
template <typename T, typename F>
struct conditional<false, T, F> {
    using type = F;
};
template <bool B, typename T, typename F>
using conditional_t = typename conditional<B, T, F>::type;

template <typename T, T V>
struct integral_constant {
    static constexpr T value = V;
    using value_type = T;
    constexpr operator T() const { return V; }
};
using true_type = integral_constant<bool, true>;
using false_type = integral_constant<bool, false>;

template <typename A, typename B>
struct is_same : false_type {};
template <typename A>
struct is_same<A, A> : true_type {};
template <typename A, typename B>
constexpr bool is_same_v = is_same<A, B>::value;

template <typename T>
struct remove_cv {
    using type = T;
};
template <typename T>
struct remove_cv<const T> {
    using type = T;
};
template <typename T>
struct remove_cv<volatile T> {
    using type = T;
};
template <typename T>
struct remove_cv<const volatile T> {
    using type = T;
};
template <typename T>
using remove_cv_t = typename remove_cv<T>::type;

template <typename T, T... Is>
struct integer_sequence {
    static constexpr size_t size() { return sizeof...(Is); }
};
template <size_t... Is>
using index_sequence = integer_sequence<size_t, Is...>;
// clang builtin: builds integer_sequence<T, 0..N-1> without recursive instantiation.
template <typename T, T N>
using make_integer_sequence = __make_integer_seq<integer_sequence, T, N>;
template <size_t N>
using make_index_sequence = make_integer_sequence<size_t, N>;
} // namespace detail
} // namespace pto

#ifndef PTOREWRITE_HAVE_STDLIB
// Without a standard library (no compiler resource directory), the few traits kernel bodies
// test are provided here so that `if constexpr (std::is_same_v<T, half>)` still parses.
namespace std {
using pto::detail::conditional;
using pto::detail::conditional_t;
using pto::detail::enable_if;
using pto::detail::enable_if_t;
using pto::detail::false_type;
using pto::detail::integral_constant;
using pto::detail::is_same;
using pto::detail::is_same_v;
using pto::detail::remove_cv;
using pto::detail::remove_cv_t;
using pto::detail::true_type;
} // namespace std
#endif

namespace pto {

enum class TileType {
    Vec,
    Mat,
    Left,
    Right,
    Acc,
    Bias,
    Scaling,
    ScaleLeft,
    ScaleRight,
    Ctrl,
};

// Outer (block) layout of a tile.
enum class BLayout {
    RowMajor = 0,
    ColMajor = 1,
};

// Inner (fractal box) layout; NoneBox means a plain 2-D tile.
enum class SLayout {
    NoneBox = 0,
    RowMajor = 1,
    ColMajor = 2,
    GpuSwizzle128B = 3,
};

// GM tensor layouts.
enum class Layout {
    ND,
    DN,
    NZ,
    SCALE,
    MX_A_ND,
    MX_A_DN,
    MX_A_ZZ,
    MX_B_ND,
    MX_B_DN,
    MX_B_NN,
    HIF4_A_ZZ,
    HIF4_B_NN,
    NC1HWC0,
    GNC1HWC0,
    NCHW,
    GNCHW,
    NHWC,
    NDC1HWC0,
    NCDHW,
    FRACTAL_Z,
    FRACTAL_Z_S16S8,
    FRACTAL_Z_3D,
    MAX,
};

// 64-bit so that custom pad values can carry a float bit pattern above bit 32.
enum class PadValue : uint64_t {
    Null = 0,
    Zero = 1,
    Max = 2,
    Min = 3,
    CustomBase = 0x100000000ULL,
};

enum class CompactMode {
    Null,
    Normal,
    RowPlusOne,
    RowAlignedPadding,
};

enum class CmpMode : uint8_t {
    EQ = 0,
    NE = 1,
    LT = 2,
    LE = 3,
    GT = 4,
    GE = 5,
};

enum class RoundMode : uint8_t {
    CAST_NONE = 0,
    CAST_RINT = 1,
    CAST_ROUND = 2,
    CAST_FLOOR = 3,
    CAST_CEIL = 4,
    CAST_TRUNC = 5,
    CAST_ODD = 6,
};

enum class SaturationMode : uint8_t {
    ON = 0,
    OFF = 1,
};

// Unit-flag phase of an accumulator store / accumulating matmul.
enum class STPhase : uint8_t {
    Unspecified = 0x0,
    Partial = 0x2,
    Final = 0x3,
};

enum class AccPhase : uint8_t {
    Unspecified = 0x0,
    Unknown = Unspecified,
    Partial = 0x2,
    Final = 0x3,
};

// SYNCALL: which cores take part in the all-core barrier, and how it is carried out
// (the hardware barrier or a counter in GM).
enum class SyncAllMode : uint8_t { Hard = 0, Soft = 1 };
enum class SyncCoreType : uint8_t { AIVOnly = 0, AICOnly = 1, Mix = 2 };
// The soft SYNCALL's GM workspace, in int32s: its counter alone on one 64-byte cache line.
constexpr int32_t SYNCALL_SOFT_WORKSPACE_INT32 = 16;

// TFILLPAD variants: a separate destination, the source padded where it stands, or a larger
// destination the source is expanded into.
enum class TFillPadMode : uint8_t { Normal = 0, InPlace = 1, Expand = 2 };

enum class AtomicType : uint8_t {
    AtomicNone = 0,
    AtomicAdd = 1,
};

enum class ReluPreMode : uint8_t {
    NoRelu = 0,
    NormalRelu = 1,
};

enum class AccToVecMode : uint8_t {
    SingleModeVec0 = 0,
    SingleModeVec1 = 1,
    DualModeSplitM = 2,
    DualModeSplitN = 3,
};

enum class PrintFormat : uint8_t {
    Width8_Precision4 = 0,
    Width8_Precision2 = 1,
    Width10_Precision6 = 2,
};

enum class MaskPattern : uint8_t {
    P0101 = 1,
    P1010 = 2,
    P0001 = 3,
    P0010 = 4,
    P0100 = 5,
    P1000 = 6,
    P1111 = 7,
};

enum class QuantType {
    MXFP8 = 0,
    MXFP4_E2M1 = 1,
    INT8_SYM = 2,
    INT8_ASYM = 3,
};

// How an MX quantisation derives each group's shared exponent (OCP or NVIDIA rounding).
enum class QuantScaleAlg {
    OCP = 0,
    NV = 1,
};

// One tag for an MX quantisation: the destination format and the shared-exponent rule together
// (fp8 e4m3 or fp4 e2m1, each with OCP or NVIDIA scaling), or HiFloat4.
enum class MxQuantAlg {
    OcpMxFp8E4M3 = 0,
    NvMxFp8E4M3 = 1,
    OcpMxFp4E2M1 = 2,
    NvMxFp4E2M1 = 3,
    Hif4 = 4,
};

enum class VecStoreMode {
    ND = 0,
    NZ = 1,
};

enum class TCopyMode : uint8_t {
    SHALLOW_COPY = 0,
    DEEP_COPY = 1,
};

enum class SetFmatrixMode {
    FMATRIX_A_AUTO,
    FMATRIX_B_AUTO,
    FMATRIX_A_MANUAL,
    FMATRIX_B_MANUAL,
};

enum class TileLayoutCustom : uint8_t {
    ND,
    DN,
    NZ,
    ZN,
    ZZ,
    GPU_SWIZZLE_128B,
    NONE,
};

enum class HistByte : uint8_t {
    BYTE_0 = 0,
    BYTE_1 = 1,
    BYTE_2 = 2,
    BYTE_3 = 3,
};

// Precision selectors taken as `auto` template arguments by the math instructions.
enum class PowAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class DivAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class SqrtAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RsqrtAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RecipAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class ExpAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class LogAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class FmodAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class FmodSAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RemAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RemSAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };

enum class ScatterAtomicOp : uint8_t { None = 0, Add = 1, Max = 2, Min = 3 };
enum class ScatterOOB : uint8_t { Undefined = 0, Skip = 1, Clamp = 2, Wrap = 3 };
enum class ScatterConflict : uint8_t { Last = 0, Default = 1 };
// Which axis a pattern gather / scatter works along.
enum class GatherAxis : uint8_t { GATHER_ROW = 0, GATHER_COL = 1 };
enum class ScatterAxis : uint8_t { SCATTER_ROW = 0, SCATTER_COL = 1 };

enum class GatherOOB : uint8_t { Undefined = 0, Clamp = 1, Wrap = 2, Zero = 3 };
enum class Coalesce : uint8_t { Row = 0, Elem = 1 };
// a5 GM -> L1 gather: how the index walk runs (the scalar unit or SIMT threads).
enum class GatherExec : uint8_t { Scalar = 0, Simt = 1 };

#ifndef TINSERT_MODE_DEFINED
#define TINSERT_MODE_DEFINED
enum class TInsertMode : uint8_t {
    SPLIT2 = 2,
    SPLIT4 = 3,
};
#endif

namespace GlobalTensorDim {
constexpr int DIM_0 = 0;
constexpr int DIM_1 = 1;
constexpr int DIM_2 = 2;
constexpr int DIM_3 = 3;
constexpr int DIM_4 = 4;
constexpr int TOTAL_DIM = 5;
} // namespace GlobalTensorDim

constexpr int PTO_RANDOM_KEY_SIZE = 2;
constexpr int PTO_RANDOM_COUNTER_SIZE = 4;
using TRandomKey = uint32_t[PTO_RANDOM_KEY_SIZE];
using TRandomCounter = uint32_t[PTO_RANDOM_COUNTER_SIZE];

// Packed signed 4-bit pair storage (two values per byte).
struct int4b_t {
    uint8_t storage;
};

} // namespace pto

#endif // PTOREWRITE_PTO_TYPE_HPP
