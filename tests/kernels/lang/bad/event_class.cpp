// Bad input: an event naming OP_COUNT, which is no instruction class.
#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void event_class(__gm__ float *out)
{
    using TileT = Tile<TileType::Vec, float, 16, 64>;
    TileT x;
    TASSIGN(x, 0x0);
    Event<Op::TEXPANDS, Op::OP_COUNT> done;
    done = TEXPANDS(x, 1.0f);
}
