// ptorewrite parse-only headers: compiler surface and architecture selection.
//
// The Ascend compiler (bisheng) provides address-space keywords, pipe/event enums, sync
// intrinsics and 16-bit float types as builtins. Plain clang knows none of them, so they
// are declared here with the same spelling. Nothing here has semantics: these headers
// exist so that libclang can build a complete AST of a kernel.
#ifndef PTOREWRITE_ARCH_HPP
#define PTOREWRITE_ARCH_HPP

// Lets tooling (and kernels, if they care) tell the bundled headers from the real ones.
#define PTOREWRITE_BUNDLED_HEADERS 1

// ---------------------------------------------------------------------------------------
// Architecture. The front end passes the macros listed in ptorewrite/parse/arch_macros.py;
// the derived PTO_NPU_ARCH_* names mirror the ones pto-isa derives from __NPU_ARCH__.
// Without any -D we assume a2a3, the project default.
// ---------------------------------------------------------------------------------------
#if !defined(__NPU_ARCH__)
#define __NPU_ARCH__ 2201
#endif
#if !defined(__CCE_AICORE__)
#if __NPU_ARCH__ == 2201
#define __CCE_AICORE__ 220
#else
#define __CCE_AICORE__ 310
#endif
#endif

#if __NPU_ARCH__ == 2201
#define PTO_NPU_ARCH_A2A3
#elif (__NPU_ARCH__ == 3101) || (__NPU_ARCH__ == 3510)
#define PTO_NPU_ARCH_A5
#endif

// Core-type shorthands some kernels test instead of the dav-specific names.
#if defined(__DAV_C220_CUBE__) || defined(__DAV_C310_CUBE__)
#ifndef __DAV_CUBE__
#define __DAV_CUBE__ 1
#endif
#endif
#if defined(__DAV_C220_VEC__) || defined(__DAV_C310_VEC__)
#ifndef __DAV_VEC__
#define __DAV_VEC__ 1
#endif
#endif

// ---------------------------------------------------------------------------------------
// Keywords. Kernel-level markers become annotate attributes so the front end can find
// entry points and device functions in the AST; address-space qualifiers vanish because
// they sit in type positions where an attribute would change or break the type.
// ---------------------------------------------------------------------------------------
#define __global__ __attribute__((annotate("pto.global")))
#define __aicore__ __attribute__((annotate("pto.aicore")))
#define AICORE __aicore__

#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __biasbuf__
#define __ssbuf__
#define __tf__
#define __in__
#define __out__

// pto-isa's own declaration macros, for kernels that use them on helper functions.
#define PTO_INLINE inline
#define PTO_INST AICORE inline
#define PTO_INTERNAL AICORE inline
// Our instruction declarations have no bodies, so they must not be inline.
#define PTOREWRITE_DECL AICORE

// ---------------------------------------------------------------------------------------
// Fixed-width integers. Defined from the compiler's own type macros so they are the very
// same types <cstdint> would give; a kernel may include both without a conflict.
// ---------------------------------------------------------------------------------------
typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __SIZE_TYPE__ size_t;
namespace std {
typedef __SIZE_TYPE__ size_t;
}

#define GM_ADDR __gm__ uint8_t *

// ---------------------------------------------------------------------------------------
// 16-bit floats. Distinct class types (not typedefs of one builtin) so that the canonical
// spelling libclang reports for a Tile's DType is exactly "half" or "bfloat16_t", and so
// the two never collapse into one type. They hold the real IEEE bit pattern of the value
// (rounded to nearest even) and convert back exactly, in constant expressions too: kernels
// check encodings at compile time (`PadValueCustom((half)-1.0)` is 0xBC00 in its low bits).
// ---------------------------------------------------------------------------------------
namespace ptorewrite_fp16 {
// binary32 -> binary16 bits: overflow goes to infinity, NaN stays a (quiet) NaN, values below
// the normal range become subnormals or zero, each rounded to nearest even.
constexpr uint16_t from_float(float f)
{
    const uint32_t x = __builtin_bit_cast(uint32_t, f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const int32_t exp = int32_t((x >> 23) & 0xFFu);
    uint32_t mant = x & 0x7FFFFFu;
    if (exp == 0xFF) {
        return uint16_t(sign | 0x7C00u | (mant != 0 ? 0x200u : 0u));
    }
    const int32_t e = exp - 112;  // the binary16 exponent field
    if (e >= 0x1F) {
        return uint16_t(sign | 0x7C00u);
    }
    if (e <= 0) {  // a subnormal result: units of 2^-24
        if (e < -10) {
            return uint16_t(sign);
        }
        mant |= 0x800000u;
        const uint32_t shift = uint32_t(14 - e);
        uint32_t bits = mant >> shift;
        const uint32_t rest = mant & ((1u << shift) - 1u);
        const uint32_t tie = 1u << (shift - 1u);
        if (rest > tie || (rest == tie && (bits & 1u) != 0)) {
            ++bits;
        }
        return uint16_t(sign | bits);
    }
    uint32_t bits = sign | (uint32_t(e) << 10) | (mant >> 13);
    const uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (bits & 1u) != 0)) {
        ++bits;  // a carry into the exponent is the right answer (up to infinity)
    }
    return uint16_t(bits);
}

constexpr float to_float(uint16_t h)
{
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1Fu;
    const uint32_t mant = h & 0x3FFu;
    if (exp == 0x1F) {
        return __builtin_bit_cast(float, sign | 0x7F800000u | (mant << 13));
    }
    if (exp == 0) {
        const float v = float(mant) * (1.0f / 16777216.0f);
        return sign != 0 ? -v : v;
    }
    return __builtin_bit_cast(float, sign | ((exp + 112u) << 23) | (mant << 13));
}

// binary32 -> bfloat16 bits: the upper half, rounded to nearest even; NaN stays a NaN.
constexpr uint16_t bf16_from_float(float f)
{
    const uint32_t x = __builtin_bit_cast(uint32_t, f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) {
        return uint16_t((x >> 16) | 0x40u);
    }
    return uint16_t((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

constexpr float bf16_to_float(uint16_t b)
{
    return __builtin_bit_cast(float, uint32_t(b) << 16);
}
} // namespace ptorewrite_fp16

struct half {
    uint16_t bits_;
    half() = default;
    constexpr half(float f) : bits_(ptorewrite_fp16::from_float(f)) {}
    constexpr operator float() const { return ptorewrite_fp16::to_float(bits_); }
};
struct bfloat16_t {
    uint16_t bits_;
    bfloat16_t() = default;
    constexpr bfloat16_t(float f) : bits_(ptorewrite_fp16::bf16_from_float(f)) {}
    constexpr operator float() const { return ptorewrite_fp16::bf16_to_float(bits_); }
};

// 8-bit floats and packed pairs of 4-bit floats (the a5 compiler's builtin element types),
// one byte each. Distinct class types for the same reason as half: the tile's DType keeps
// its own spelling.
#define PTOREWRITE_BYTE_FLOAT(name)                  \
    struct name {                                    \
        uint8_t bits_;                               \
        name() = default;                            \
        constexpr name(float) : bits_(0) {}          \
        constexpr operator float() const { return 0.0f; } \
    }
PTOREWRITE_BYTE_FLOAT(float8_e4m3_t);
PTOREWRITE_BYTE_FLOAT(float8_e5m2_t);
PTOREWRITE_BYTE_FLOAT(float8_e8m0_t);
PTOREWRITE_BYTE_FLOAT(hifloat8_t);
PTOREWRITE_BYTE_FLOAT(float4_e2m1x2_t);
PTOREWRITE_BYTE_FLOAT(float4_e1m2x2_t);
#undef PTOREWRITE_BYTE_FLOAT

// ---------------------------------------------------------------------------------------
// Pipes and events, numbered as in the simulator headers (spec §1). Plain enums so that
// `(event_t)expr` and `static_cast<event_t>(id)` work and the values can be template
// arguments (`template <pipe_t src, pipe_t dst>`).
// ---------------------------------------------------------------------------------------
// Kernels written for toolchains whose pipe_t lacks PIPE_FIX define it as a macro before the
// PTO headers (`#define PIPE_FIX static_cast<pipe_t>(10)`); keep the enumerator declarable and
// give the user's macro back afterwards.
#pragma push_macro("PIPE_FIX")
#undef PIPE_FIX
enum pipe_t {
    PIPE_S = 0,
    PIPE_V = 1,
    PIPE_MTE1 = 2,
    PIPE_MTE2 = 3,
    PIPE_MTE3 = 4,
    PIPE_M = 5,
    PIPE_ALL = 6,
    PIPE_FIX = 7,
};
#pragma pop_macro("PIPE_FIX")

enum event_t {
    EVENT_ID0 = 0,
    EVENT_ID1 = 1,
    EVENT_ID2 = 2,
    EVENT_ID3 = 3,
    EVENT_ID4 = 4,
    EVENT_ID5 = 5,
    EVENT_ID6 = 6,
    EVENT_ID7 = 7,
};

#define EVENT_ID_MAX 8

// Intra-core synchronisation (the part ptorewrite analyses).
AICORE void set_flag(pipe_t pipe, pipe_t tpipe, event_t eventId);
AICORE void wait_flag(pipe_t pipe, pipe_t tpipe, event_t eventId);
// The id may also be a plain integer (`set_flag(PIPE_MTE1, PIPE_M, pingpong)`).
AICORE void set_flag(pipe_t pipe, pipe_t tpipe, uint64_t eventId);
AICORE void wait_flag(pipe_t pipe, pipe_t tpipe, uint64_t eventId);
AICORE void pipe_barrier(pipe_t pipe);

// Core identity.
AICORE int64_t get_block_idx();
AICORE int64_t get_block_num();
AICORE int64_t get_subblockid();
AICORE int64_t get_subblockdim();
extern int64_t block_idx;
extern int64_t block_num;

// Cross-core and mode-setting intrinsics that real kernels call; declared only so that
// such kernels parse (ptorewrite passes cross-core work through with a diagnostic).
AICORE void ffts_cross_core_sync(pipe_t pipe, uint64_t config);
AICORE uint64_t _getFFTSMsg(uint16_t mode, uint16_t flagId);
AICORE void wait_flag_dev(int64_t flagId);
AICORE void wait_flag_dev(pipe_t pipe, int64_t flagId);  // a5: the pipe that waits
AICORE void set_ffts_base_addr(uint64_t addr);
// A word stored to device memory by the scalar unit, bypassing the cache (a doorbell, or an ffts
// flag written through the ffts base address).
template <typename T, typename V>
AICORE void st_dev(V value, __gm__ T *addr, int64_t offset);
AICORE void set_mask_norm();
AICORE void set_mask_count();
AICORE void set_vector_mask(uint64_t maskHigh, uint64_t maskLow);
AICORE void set_atomic_add();
AICORE void set_atomic_none();
AICORE void set_atomic_f32();
AICORE void set_atomic_f16();
AICORE uint64_t get_ctrl();
AICORE void set_ctrl(uint64_t config);
AICORE uint64_t get_sys_cnt();
AICORE uint64_t sbitset0(uint64_t value, int64_t bit);
AICORE uint64_t sbitset1(uint64_t value, int64_t bit);

// Data synchronisation barrier of the scalar unit's memory accesses.
typedef int mem_dsb_t;
constexpr mem_dsb_t DSB_ALL = 0;
constexpr mem_dsb_t DSB_DDR = 1;
constexpr mem_dsb_t DSB_UB = 2;
AICORE void dsb(mem_dsb_t scope);

// a5 SIMT vector functions: the qualifier, the thread-count bound and the thread ids. Declared
// so that such kernels parse; the front end does not model a SIMT function's accesses.
#define __simt_vf__
#define LAUNCH_BOUND(threads)
AICORE uint32_t __cce_simt_get_TID_X();
AICORE uint32_t __cce_simt_get_TID_Y();
AICORE uint32_t __cce_simt_get_TID_Z();
AICORE void __sync_workitems();
AICORE float __builtin_cce_redux_add_f32(float value);
AICORE float __builtin_cce_expf(float value);
namespace cce {
struct dim3 {
    uint32_t x = 1, y = 1, z = 1;
    AICORE constexpr dim3(uint32_t x_ = 1, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
};
// Runs a SIMT vector function on the vector core with the given thread grid.
template <auto Function, typename... Args> AICORE void async_invoke(Args... args);
} // namespace cce

// Scalar GM accesses of soft barriers and signals: a load that bypasses the data cache, and
// atomic scalar stores configured by type and operation.
template <typename T> AICORE T ld_dev(T *addr, int64_t offset);
enum atomic_type_t { ATOMIC_S32 = 0, ATOMIC_U32 = 1, ATOMIC_F32 = 2, ATOMIC_F16 = 3, ATOMIC_S16 = 4 };
enum atomic_op_t { ATOMIC_SUM = 0, ATOMIC_MAX = 1, ATOMIC_MIN = 2 };
AICORE void set_st_atomic_cfg(atomic_type_t type, atomic_op_t op);
template <typename T> AICORE void st_atomic(T value, T *addr);

// Instruction-cache preload and its status poll (profiling set-up; no tile data).
AICORE void preload(const void *addr, int64_t lines);
AICORE int64_t get_icache_prl_st();

// Raw data movers and fills below the PTO instructions, at addresses the kernel computes. The
// front end reads each as an instruction on its pipe touching the bytes its arguments give
// (ptorewrite/parse/raw.py). The trailing integers (burst counts, lengths, gaps, strides) vary
// with the form used.
#define PTOREWRITE_RAW_COPY(name) \
    template <typename... Config> AICORE void name(void *dst, void *src, Config... config)
PTOREWRITE_RAW_COPY(copy_gm_to_ubuf);
PTOREWRITE_RAW_COPY(copy_ubuf_to_gm);
PTOREWRITE_RAW_COPY(copy_gm_to_cbuf);
PTOREWRITE_RAW_COPY(copy_cbuf_to_gm);
PTOREWRITE_RAW_COPY(copy_cbuf_to_ubuf);
PTOREWRITE_RAW_COPY(copy_ubuf_to_cbuf);
PTOREWRITE_RAW_COPY(copy_gm_to_ubuf_align_v2);
PTOREWRITE_RAW_COPY(copy_ubuf_to_gm_align_v2);
PTOREWRITE_RAW_COPY(copy_gm_to_cbuf_align_v2);
PTOREWRITE_RAW_COPY(copy_cbuf_to_gm_align_v2);
PTOREWRITE_RAW_COPY(copy_gm_to_ubuf_align_b8);
PTOREWRITE_RAW_COPY(copy_gm_to_ubuf_align_b16);
PTOREWRITE_RAW_COPY(copy_gm_to_ubuf_align_b32);
PTOREWRITE_RAW_COPY(copy_ubuf_to_gm_align_b8);
PTOREWRITE_RAW_COPY(copy_ubuf_to_gm_align_b16);
PTOREWRITE_RAW_COPY(copy_ubuf_to_gm_align_b32);
#undef PTOREWRITE_RAW_COPY
template <typename T, typename... Config> AICORE void create_cbuf_matrix(T *dst, Config... config);
template <typename T, typename... Config> AICORE void create_cbuf_matrix_bf16(T *dst, Config... config);
template <typename T, typename V, typename... Config> AICORE void vector_dup(T *dst, V value, Config... config);
AICORE void set_nd_para(uint64_t config);
// a5 MX: scales from L1 into the L0A / L0B scale buffers (the destination is an address / 16).
template <typename... Config> AICORE void load_cbuf_to_ca_mx(uint64_t dst, void *src, Config... config);
template <typename... Config> AICORE void load_cbuf_to_cb_mx(uint64_t dst, void *src, Config... config);
// a5 MX cube multiply-accumulate on raw L0 addresses (what TMATMUL_MX runs).
template <typename C, typename A, typename B, typename... Config> AICORE void mad_mx(C *c, A *a, B *b, Config... config);
// The buffer address behind a tile handle (a TileData::TileDType), as a typed pointer.
template <typename Handle> AICORE Handle __cce_get_tile_ptr(Handle tile);

// a5 register-level vector code (a `__VEC_SCOPE__ { ... }` block of vector-register loads, stores
// and predicates). Declared so that kernels using it parse; ptorewrite does not model it and
// refuses it where a kernel runs it.
#define __VEC_SCOPE__
template <typename T> struct RegTensor {};
struct UnalignReg {};
struct MaskReg {};
enum PtorewriteMemBar { VST_VLD, VLD_VST, VST_VST, VLD_VLD };
enum PtorewriteStoreDist { NORM, NORM_B8, NORM_B16, NORM_B32 };
template <typename T, typename N> AICORE MaskReg CreatePredicate(N &count);
AICORE void mem_bar(PtorewriteMemBar kind);
template <typename T> AICORE void vldas(UnalignReg &align, T *addr);
template <typename T> AICORE void vldus(RegTensor<T> &reg, UnalignReg &align, T *addr);
template <typename T, typename... Config> AICORE void vlds(RegTensor<T> &reg, T *addr, Config... config);
template <typename T, typename... Config> AICORE void vsts(RegTensor<T> &reg, T *addr, Config... config);
// Broadcast a scalar into a vector register under a predicate; lanes it leaves out are zeroed
// or kept (the mode).
enum PtorewriteRegMode { MODE_ZEROING, MODE_MERGING };
template <typename T, typename S, typename... Config> AICORE void vdup(RegTensor<T> &reg, S value, Config... config);

// Data-cache clean/invalidate of GM lines the scalar unit touched. An unscoped enumeration, as
// the device compiler's: kernels name its values with and without `cache_line_t::`.
enum cache_line_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE = 1 };
AICORE void dcci(void *addr, cache_line_t scope);

// a5 flags between the cube core and its vector cores (cross-core; not analysed).
AICORE void set_intra_block(pipe_t pipe, uint64_t syncId);
AICORE void wait_intra_block(pipe_t pipe, uint64_t syncId);

// Fixpipe quantization modes (a plain enum: kernels name them with and without the prefix).
// The values are the hardware encodings (the V- forms take a per-channel tensor of scales).
enum QuantMode_t {
    NoQuant = 0,
    F322F16 = 1,
    VREQ8 = 2,
    REQ8 = 3,
    VDEQF16 = 4,
    DEQF16 = 5,
    VSHIFTS322S16 = 12,
    SHIFTS322S16 = 13,
    F322BF16 = 16,
    VQF322B8_PRE = 23,
    QF322B8_PRE = 24,
    QF322HIF8_PRE = 25,
    QF322FP8_PRE = 26,
    QF322F32_PRE = 27,
    VQF322HIF8_PRE = 28,
    QF322F16_PRE = 32,
    VQF322F16_PRE = 33,
    QF322BF16_PRE = 34,
    QS322BF16_PRE = 35,
    VQF322BF16_PRE = 36,
    VQF322FP8_PRE = 37,
    VQF322F32_PRE = 38,
    VQS322BF16_PRE = 39,
};

#endif // PTOREWRITE_ARCH_HPP
