// ptorewrite parse-only headers: pto-isa's host-side GM prefetch launcher (host code; not analysed).
#ifndef PTOREWRITE_PTO_PREFETCH_HPP
#define PTOREWRITE_PTO_PREFETCH_HPP

#include <pto/common/type.hpp>

namespace pto {

template <bool UseSdma = true, int AivCores = -1, typename Stream = void *>
void PTO_PREFETCH(__gm__ void *tensor, uint64_t bytes, Stream stream);

} // namespace pto

#endif // PTOREWRITE_PTO_PREFETCH_HPP
