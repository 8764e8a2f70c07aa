// What the a2a3 AUTO cluster kernels of this folder share, so that each kernel file holds only
// what it tests: the PTO headers, and which core type a line is compiled for, tested with
// `if constexpr` as a2a3's FIFO kernels do (one source for the cube core and the vector cores).
#pragma once
#include <pto/pto-inst.hpp>
#include <pto/common/fifo.hpp>

using namespace pto;

#if defined(__DAV_C220_CUBE__)
constexpr bool CUBE_SIDE = true;
#else
constexpr bool CUBE_SIDE = false;
#endif
#if defined(__DAV_C220_VEC__)
constexpr bool VEC_SIDE = true;
#else
constexpr bool VEC_SIDE = false;
#endif
