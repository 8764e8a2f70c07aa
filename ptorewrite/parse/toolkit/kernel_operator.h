// ptorewrite parse-only stand-in for the Ascend toolkit's kernel_operator.h (see README.md).
// Used only when the real header is not on the include path. Declarations only.
#ifndef PTOREWRITE_TOOLKIT_KERNEL_OPERATOR_H
#define PTOREWRITE_TOOLKIT_KERNEL_OPERATOR_H

// Expanded where they are used, so the address-space words come from whichever PTO headers
// the kernel includes afterwards.
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t *
#endif
#ifndef __aicore__
#define __aicore__ AICORE
#endif

// `if ASCEND_IS_AIV { ... }`: code for the vector (AIV) or the cube (AIC) core only, decided by
// the compile pass, which the core-type macros of the analysed core name.
#ifndef ASCEND_IS_AIV
#if defined(__DAV_CUBE__) && !defined(__DAV_VEC__)
#define ASCEND_IS_AIV constexpr (false)
#define ASCEND_IS_AIC constexpr (true)
#else
#define ASCEND_IS_AIV constexpr (true)
#define ASCEND_IS_AIC constexpr (false)
#endif
#endif

namespace AscendC {
__INT64_TYPE__ GetBlockNum();
__INT64_TYPE__ GetBlockIdx();
template <typename T>
class GlobalTensor;
} // namespace AscendC

#endif // PTOREWRITE_TOOLKIT_KERNEL_OPERATOR_H
