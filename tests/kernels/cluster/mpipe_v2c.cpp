// One cluster (a5): each vector core converts its 16-row half of a matrix to the fractal layout
// and pushes it into the cube core's L1 through an explicit-index FIFO (`TMPipe` with a
// MAT_FIFO), the two halves meeting in one L1 tile; the cube core pops it, moves it into L0A and
// multiplies, twice, freeing each entry once the move has read it.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int TILES = 2;

extern "C" __global__ AICORE void mpipe_v2c(__gm__ float *out, __gm__ half *a, __gm__ half *b)
{
    using HalfNd = Tile<TileType::Vec, half, 16, 32, BLayout::RowMajor, 16, 32>;
    using HalfNz = Tile<TileType::Vec, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor, 512>;
    using MatT = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor, 512>;
    using Fifo = TMPipe<2, FIFOType::MAT_FIFO, 2, 2, HalfNz, MatT, false, 0>;
    MatT entries[2];
    TASSIGN(entries[0], 0x0);
    TASSIGN(entries[1], 0x800);
    Fifo fifo((uint32_t)(uint64_t)entries[0].data());
#if defined(__DAV_CUBE__)
    using GmIn = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmOut = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    MatT bMat;
    TileLeft<half, 32, 32> aLeft;
    TileRight<half, 32, 32> bRight;
    TileAcc<float, 32, 32> product;
    TASSIGN(bMat, 0x1000);
    TASSIGN(aLeft, 0x0);
    TASSIGN(bRight, 0x0);
    TASSIGN(product, 0x0);
    GmIn gB(b);
    TLOAD(bMat, gB);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(bRight, bMat);
    for (int t = 0; t < TILES; ++t) {
        GmOut gOut(out + t * 32 * 32);
        fifo.cons.setTileId(t, 0);
        TPOP(entries[t % 2], fifo);
        TMOV(aLeft, entries[t % 2]);
        TFREE(fifo);
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        TMATMUL(product, aLeft, bRight);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        TSTORE(gOut, product);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
        set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
    }
#endif
#if defined(__DAV_VEC__)
    using GmHalf = GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    HalfNd x;
    HalfNz xNz;
    TASSIGN(x, 0x0);
    TASSIGN(xNz, 0x400);
    int sub = get_subblockid();
    for (int t = 0; t < TILES; ++t) {
        GmHalf gIn(a + (t * 2 + sub) * 16 * 32);
        TLOAD(x, gIn);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TMOV(xNz, x);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        fifo.prod.setTileId(t, 0);
        TPUSH(xNz, fifo);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    }
#endif
}
