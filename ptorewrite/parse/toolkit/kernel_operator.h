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

namespace AscendC {
__INT64_TYPE__ GetBlockNum();
__INT64_TYPE__ GetBlockIdx();
template <typename T>
class GlobalTensor;
} // namespace AscendC

#endif // PTOREWRITE_TOOLKIT_KERNEL_OPERATOR_H
