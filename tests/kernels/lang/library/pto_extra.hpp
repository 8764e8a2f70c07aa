// A library header (given with -isystem) that declares an instruction template the
// instruction table does not know.
#pragma once
#include <pto/pto-inst.hpp>

namespace pto {
template <typename TileDst, typename TileSrc>
AICORE void TBLEND(TileDst &dst, TileSrc &src);
}
