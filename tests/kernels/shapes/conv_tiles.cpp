// ConvTile: an N-D tile of the layout-conversion paths. Here a 4-D NCHW tile (1 x 16 x 2 x 8
// halves, 512 bytes) is transposed into a 5-D NC1HWC0 one; each is aliased by a flat tile
// that the load fills and the store reads. `check` counts every access to a ConvTile as its
// whole tile. Without the V -> MTE3 flag, the store races with the transpose.
#include <pto/pto-inst.hpp>

using namespace pto;

using Flat = Tile<TileType::Vec, half, 1, 256, BLayout::RowMajor>;
using Nchw = ConvTile<TileType::Vec, half, 256, Layout::NCHW, ConvTileShape<1, 16, 2, 8>>;
using Nc1hwc0 = ConvTile<TileType::Vec, half, 256, Layout::NC1HWC0, ConvTileShape<1, 1, 2, 8, 16>>;
using Scratch = Tile<TileType::Vec, half, 16, 16, BLayout::RowMajor>;
using Gm = GlobalTensor<half, Shape<1, 1, 1, 1, 256>, Stride<256, 256, 256, 256, 1>>;

template <bool kOrdered>
__global__ AICORE void conv_tiles(__gm__ half *out, __gm__ half *in)
{
    Flat flatIn;
    Flat flatOut;
    Nchw src;
    Nc1hwc0 dst;
    Scratch tmp;
    TASSIGN(flatIn, 0x0);
    TASSIGN(src, 0x0);
    TASSIGN(flatOut, 0x200);
    TASSIGN(dst, 0x200);
    TASSIGN(tmp, 0x400);
    Gm gIn(in);
    Gm gOut(out);
    TLOAD(flatIn, gIn);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TTRANS(dst, src, tmp);
    if constexpr (kOrdered) {
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    }
    TSTORE(gOut, flatOut);
}

template __global__ AICORE void conv_tiles<true>(__gm__ half *, __gm__ half *);
template __global__ AICORE void conv_tiles<false>(__gm__ half *, __gm__ half *);
