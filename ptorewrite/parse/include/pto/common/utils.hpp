// ptorewrite parse-only headers: small arithmetic helpers pto-isa keeps in pto/common/utils.hpp.
#ifndef PTOREWRITE_PTO_UTILS_HPP
#define PTOREWRITE_PTO_UTILS_HPP

#include <pto/common/type.hpp>

namespace pto {

constexpr int32_t CeilDivision(int32_t num, int32_t den)
{
    return (num + den - 1) / den;
}

constexpr uint32_t CeilAlignment(uint32_t num, uint32_t align)
{
    return (num + align - 1) / align * align;
}

} // namespace pto

#endif // PTOREWRITE_PTO_UTILS_HPP
