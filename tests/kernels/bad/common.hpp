// Shared declarations of the bad-input kernels.
#include <pto/pto-inst.hpp>

using namespace pto;

using TileT = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
