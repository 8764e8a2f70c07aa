// A double-buffered manual vector kernel whose flags go through small helpers, in the shape of
// pto-isa's hand-written GEMM: SetFlag/WaitFlag wrappers with the pipes as template arguments,
// prime and drain helpers, a ping-pong slot toggled through a `uint8_t &` parameter, and flag
// calls guarded by `if` (unbraced) on the first and last iterations.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int ROWS = 16;
constexpr int COLS = 64;
constexpr int TILES = 6;

template <pipe_t From, pipe_t To>
AICORE inline void SetFlag(uint32_t id)
{
    set_flag(From, To, static_cast<event_t>(id));
}

template <pipe_t From, pipe_t To>
AICORE inline void WaitFlag(uint32_t id)
{
    wait_flag(From, To, static_cast<event_t>(id));
}

AICORE inline void PrimeSlots()
{
    SetFlag<PIPE_V, PIPE_MTE2>(0);
    SetFlag<PIPE_V, PIPE_MTE2>(1);
}

AICORE inline void DrainSlots()
{
    WaitFlag<PIPE_V, PIPE_MTE2>(0);
    WaitFlag<PIPE_V, PIPE_MTE2>(1);
}

template <typename TileT, typename Gm>
AICORE inline void ScaleTile(TileT *in, TileT &acc, Gm &src, uint8_t &slot, int i)
{
    WaitFlag<PIPE_V, PIPE_MTE2>(slot);
    TLOAD(in[slot], src);
    SetFlag<PIPE_MTE2, PIPE_V>(slot);
    WaitFlag<PIPE_MTE2, PIPE_V>(slot);
    if (i > 0)
        pipe_barrier(PIPE_V);
    TADD(acc, acc, in[slot]);
    SetFlag<PIPE_V, PIPE_MTE2>(slot);
    slot = (slot == 0) ? 1 : 0;
}

extern "C" __global__ AICORE void accumulate(__gm__ float *out, __gm__ float *in)
{
    using TileT = Tile<TileType::Vec, float, ROWS, COLS>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
    TileT inTile[2];
    TileT acc;
    TASSIGN(inTile[0], 0x0);
    TASSIGN(inTile[1], 0x1000);
    TASSIGN(acc, 0x2000);
    uint8_t slot = 0;
    TEXPANDS(acc, 0.0f);
    PrimeSlots();
    for (int i = 0; i < TILES; ++i) {
        Gm src(in + i * ROWS * COLS);
        ScaleTile(inTile, acc, src, slot, i);
        if (i == TILES - 1)
            SetFlag<PIPE_V, PIPE_MTE3>(0);
    }
    DrainSlots();
    WaitFlag<PIPE_V, PIPE_MTE3>(0);
    Gm dst(out);
    TSTORE(dst, acc);
}
