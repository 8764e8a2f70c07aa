// ptorewrite parse-only headers: pto-isa keeps TileType/BLayout/SLayout reachable from this
// path; here they live in type.hpp, so this header only forwards.
#ifndef PTOREWRITE_PTO_MEMORY_HPP
#define PTOREWRITE_PTO_MEMORY_HPP
#include <pto/common/type.hpp>
#endif
