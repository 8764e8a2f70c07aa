// ptorewrite parse-only headers: pto-isa's debug helpers (host-side printing and a device assert).
// Kernels include the path; nothing of it affects the pipes, so the assert checks nothing here.
#ifndef PTOREWRITE_PTO_DEBUG_H
#define PTOREWRITE_PTO_DEBUG_H
#include <pto/common/type.hpp>
#ifndef PTO_ASSERT
#define PTO_ASSERT(condition, message) ((void)0)
#endif
#ifndef DEBUG_CHECK
#define DEBUG_CHECK(condition, message) ((void)0)
#endif
#endif
