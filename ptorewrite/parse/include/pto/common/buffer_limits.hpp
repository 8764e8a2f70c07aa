// ptorewrite parse-only headers: the on-chip buffer capacities and alignments, by architecture,
// under the names pto-isa's kernels size their buffers with. The figures are the machine
// model's (docs: the tile-types table of the PTO machine model); nothing else reads them.
#ifndef PTOREWRITE_BUFFER_LIMITS_HPP
#define PTOREWRITE_BUFFER_LIMITS_HPP

#include "pto/ptorewrite_arch.hpp"

#define PTO_UBUF_ALIGN_BYTES 32u
#define PTO_CBUF_ALIGN_BYTES 32u
#define PTO_L0A_ALIGN_BYTES 32u
#define PTO_L0B_ALIGN_BYTES 32u
#define PTO_L0C_ALIGN_BYTES 32u

#define PTO_CBUF_SIZE_BYTES (512u * 1024u)  // L1, both architectures
#define PTO_L0A_SIZE_BYTES (64u * 1024u)
#define PTO_L0B_SIZE_BYTES (64u * 1024u)
#if defined(PTO_NPU_ARCH_A5)
#define PTO_UBUF_SIZE_BYTES (256u * 1024u)
#define PTO_L0C_SIZE_BYTES (256u * 1024u)
#else
#define PTO_UBUF_SIZE_BYTES (192u * 1024u)
#define PTO_L0C_SIZE_BYTES (128u * 1024u)
#endif

#endif // PTOREWRITE_BUFFER_LIMITS_HPP
