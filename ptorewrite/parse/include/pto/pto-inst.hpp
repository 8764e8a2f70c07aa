// ptorewrite parse-only headers: the umbrella header kernels include.
//
// These are ptorewrite's own declarations of the public pto-isa API surface (no code from
// pto-isa, no semantics). They let libclang parse a PTO kernel without the Ascend toolkit.
#ifndef PTOREWRITE_PTO_INST_HPP
#define PTOREWRITE_PTO_INST_HPP

#include <pto/ptorewrite_arch.hpp>
#include <pto/common/type.hpp>
#include <pto/common/memory.hpp>
#include <pto/common/constants.hpp>
#include <pto/common/utils.hpp>
#include <pto/common/pto_tile.hpp>
#include <pto/common/event.hpp>
#include <pto/common/fifo.hpp>
#include <pto/common/pto_instr.hpp>
#include <pto/common/kernel_meta.hpp>
#include <pto/comm/comm_types.hpp>  // as pto-isa's umbrella: communication types, the async prefetch

#endif // PTOREWRITE_PTO_INST_HPP
