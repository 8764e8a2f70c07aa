// ptorewrite parse-only headers: see pto/common/cross_core_sync.hpp.
#include <pto/common/cross_core_sync.hpp>
