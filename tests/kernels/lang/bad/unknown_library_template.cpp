// A call with explicit template arguments to a library instruction ptorewrite does not know.
#include <pto/pto-inst.hpp>
#include <pto_extra.hpp>

using namespace pto;

__global__ AICORE void blend(__gm__ float *out)
{
    using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor>;
    Row x;
    Row y;
    TASSIGN(x, 0x0);
    TASSIGN(y, 0x100);
    TBLEND<Row, Row>(x, y);
}
