// The img2col path: a feature map in L1 (a 5-D NC1HWC0 ConvTile) is configured with its
// geometry, padding and strides, then TIMG2COL (MTE1) expands it into a Left tile that the cube
// multiplies. The configuration changes the values computed, never the bytes touched: `check`
// counts the ConvTile and the Left tile whole. Without the MTE1 -> M flag, TMATMUL reads the Left
// tile while TIMG2COL may still write it.
#include <pto/pto-inst.hpp>

using namespace pto;

using Fmap = ConvTile<TileType::Mat, half, 1 * 1 * 4 * 4 * 16, Layout::NC1HWC0, ConvTileShape<1, 1, 4, 4, 16>>;
using Weights = Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512>;
using FmapGm = GlobalTensor<half, Shape<1, 1, 4, 4, 16>, Stride<256, 256, 64, 16, 1>, Layout::NC1HWC0>;
using WeightsGm = GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>>;
using OutGm = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>>;

template <bool kOrdered>
__global__ AICORE void img2col(__gm__ float *out, __gm__ half *fmap, __gm__ half *weights)
{
    Fmap f;
    Weights w;
    TileLeft<half, 16, 16> a;
    TileRight<half, 16, 16> b;
    TileAcc<float, 16, 16> c;
    TASSIGN(f, 0x0);
    TASSIGN(w, 0x1000);
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x0);
    TASSIGN(c, 0x0);
    FmapGm fg(fmap);
    WeightsGm wg(weights);
    OutGm og(out);
    TLOAD(f, fg);
    TLOAD(w, wg);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    uint8_t pads[] = {1, 1, 1, 1};
    f.SetFmapH(4);
    f.SetFmapW(4);
    f.SetPadListArray(pads);
    f.SetFilterH(3);
    f.SetFilterW(3);
    f.SetStrideH(1);
    f.SetStrideW(1);
    f.SetDilationH(1);
    f.SetDilationW(1);
    f.SetChannelSize(16);
    SETFMATRIX(f);
    SET_IMG2COL_PADDING(f);
    TIMG2COL(a, f, 0, 0);
    TMOV(b, w);
    if constexpr (kOrdered) {
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    }
    TMATMUL(c, a, b);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(og, c);
}

template __global__ AICORE void img2col<true>(__gm__ float *, __gm__ half *, __gm__ half *);
template __global__ AICORE void img2col<false>(__gm__ float *, __gm__ half *, __gm__ half *);
