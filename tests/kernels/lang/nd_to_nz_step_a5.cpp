// a5's ND -> NZ step of TMOV between vector tiles, called directly as some kernels do: a row-major
// tile loaded from GM is rewritten as 16-row fractals in `nz`, then stored.
#include <pto/pto-inst.hpp>
using namespace pto;

extern "C" __global__ AICORE void nd_to_nz_step_a5(__gm__ half *out, __gm__ half *in)
{
    using Nd = Tile<TileType::Vec, half, 16, 32, BLayout::RowMajor, -1, -1>;
    using Nz = Tile<TileType::Vec, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor, 512>;
    GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>> src(in);
    GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>> dst(out);
    Nd nd(16, 32);
    Nz nz;
    TASSIGN(nd, 0x0);
    TASSIGN(nz, 0x400);
    TLOAD(nd, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    pto::TMovToVecNd2Nz<half, Nz, Nd>(nz.data(), nd.data(), 16, 32, 16);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, nz);
}
