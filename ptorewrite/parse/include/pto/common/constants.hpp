// ptorewrite parse-only headers: numeric constants of the pto API and pad-value helpers.
#ifndef PTOREWRITE_PTO_CONSTANTS_HPP
#define PTOREWRITE_PTO_CONSTANTS_HPP

#include <pto/common/type.hpp>

namespace pto {

// Hardware geometry (bytes unless noted).
constexpr int REPEAT_BYTE = 256;
constexpr int REPEAT_MAX = 255;
constexpr const int BLOCK_BYTE_SIZE = 32;
constexpr const int FIXP_BURST_UNIT_LEN = 64;
constexpr const uint32_t SHIFT_BLOCK_LEN = 4;
constexpr const uint32_t SHIFT_BLOCK_BYTE = 5;
constexpr const uint32_t SHIFT_FRACTAL_BYTE = 9;
constexpr const int REPEAT_STRIDE_MAX = 255;
constexpr const uint64_t BLOCK_MAX_PER_REPEAT = 8;
// Hidden UB scratch used by some vector instructions on a2a3 (spec §2).
constexpr const uint32_t TMP_UB_SIZE = 8 * 1024;
constexpr const uint32_t TMP_UB_OFFSET = 184 * 1024;
constexpr const uint64_t MASK_LEN = 64;
constexpr const int BLOCK_LEN = 16;
constexpr const int CUBE_BLOCK_SIZE = 512;
constexpr const int C0_SIZE_BYTE = 32;
constexpr const int FRACTAL_NZ_ROW = 16;
constexpr const int ACC_C0_SIZE = 16;
constexpr const uint32_t B4_C0_SIZE = 64;
constexpr const int MX_COL_LEN = 2;
constexpr const int MX_ROW_LEN = 16;
constexpr const int MX_BLOCK_SIZE = 32;
// The 32-byte UB block under its sort-header name (both architectures declare it in namespace pto).
constexpr const uint32_t BLOCK_SIZE = 32;

// A PadValue at or above CustomBase carries a raw bit pattern in its low 32 bits.
AICORE constexpr bool isCustomPadValue(PadValue pv)
{
    return static_cast<uint64_t>(pv) >= static_cast<uint64_t>(PadValue::CustomBase);
}

AICORE constexpr uint32_t getCustomPadBits(PadValue pv)
{
    return static_cast<uint32_t>(static_cast<uint64_t>(pv) & 0xFFFFFFFFULL);
}

namespace detail {
template <auto V>
constexpr uint32_t padBitsOf()
{
    if constexpr (is_same_v<decltype(V), float>) {
        return __builtin_bit_cast(uint32_t, V);
    } else if constexpr (is_same_v<decltype(V), double>) {
        return __builtin_bit_cast(uint32_t, static_cast<float>(V));
    } else {
        return static_cast<uint32_t>(V);
    }
}
} // namespace detail

// PadCustom<-1.0f> : a compile-time custom pad value.
template <auto V>
inline constexpr PadValue PadCustom =
    static_cast<PadValue>(static_cast<uint64_t>(PadValue::CustomBase) | static_cast<uint64_t>(detail::padBitsOf<V>()));

AICORE constexpr PadValue PadValueCustom(float value)
{
    return static_cast<PadValue>(static_cast<uint64_t>(PadValue::CustomBase) |
                                 static_cast<uint64_t>(__builtin_bit_cast(uint32_t, value)));
}

AICORE constexpr PadValue PadValueCustom16(uint16_t bits16)
{
    return static_cast<PadValue>(static_cast<uint64_t>(PadValue::CustomBase) | static_cast<uint64_t>(bits16));
}

AICORE constexpr PadValue PadValueCustom(half value)
{
    return static_cast<PadValue>(static_cast<uint64_t>(PadValue::CustomBase) |
                                 static_cast<uint64_t>(__builtin_bit_cast(uint16_t, value)));
}

AICORE constexpr PadValue PadValueCustom(bfloat16_t value)
{
    return static_cast<PadValue>(static_cast<uint64_t>(PadValue::CustomBase) |
                                 static_cast<uint64_t>(__builtin_bit_cast(uint16_t, value)));
}

// Repeat factors of a vector mask pattern (constexpr helpers kernels use in template arguments).
constexpr uint16_t PTO_TIME_1 = 1;
constexpr uint16_t PTO_TIME_2 = 2;
constexpr uint16_t PTO_TIME_4 = 4;

template <MaskPattern mask>
AICORE constexpr int GetTimesByMask()
{
    return mask == MaskPattern::P1111 ? PTO_TIME_1
           : (mask == MaskPattern::P1010 || mask == MaskPattern::P0101) ? PTO_TIME_2
                                                                       : PTO_TIME_4;
}

#ifdef PTO_NPU_ARCH_A5
// An MX scale tile's L0 address is its data tile's address in 16-byte units.
constexpr uint32_t SHIFT_MX_ADDR = 4;

template <typename T>
AICORE constexpr uint64_t GetScaleAddr(T *dst)
{
    return ((uint64_t)dst) >> SHIFT_MX_ADDR;
}
#endif

// The storage pattern of a tile type, named as the kernels compare it: the base layout (row or
// column major) combined with the inner box layout (none, or boxes in either order). Boxes
// other than 512 bytes have no name here and compare as NONE in pto-isa; no kernel uses them.
template <typename TileData>
AICORE constexpr TileLayoutCustom GetTileLayoutCustom()
{
    if constexpr (TileData::SFractal == SLayout::NoneBox) {
        return TileData::isRowMajor ? TileLayoutCustom::ND : TileLayoutCustom::DN;
    } else if constexpr (TileData::SFractal == SLayout::RowMajor) {
        return TileData::isRowMajor ? TileLayoutCustom::ZZ : TileLayoutCustom::NZ;
    } else if constexpr (TileData::isRowMajor) {
        return TileLayoutCustom::ZN;
    } else {
        return TileLayoutCustom::NONE;
    }
}

} // namespace pto

#endif // PTOREWRITE_PTO_CONSTANTS_HPP
