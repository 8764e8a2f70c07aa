// The AUTO form of handoff.cpp (one a5 cluster): no addresses and no flags within a core, only the
// cross-core semaphores the AUTO compiler does not insert. The cube core multiplies two 32x32 half
// matrices into a float product in a GM workspace, twice; each vector core doubles its 16-row half.
// Semaphore 0: "product ready" (16 names the second vector core on the cube side); semaphore 1:
// "half consumed" (17 for the second vector core).
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int ROUNDS = 2;
constexpr int HALF = 16 * 32;

extern "C" __global__ AICORE void handoff(__gm__ float *out, __gm__ float *ws, __gm__ half *a, __gm__ half *b)
{
#if defined(__DAV_CUBE__)
    using MatA = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using MatB = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using GmIn = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmW = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    MatA aMat;
    MatB bMat;
    TileLeft<half, 32, 32> aLeft;
    TileRight<half, 32, 32> bRight;
    TileAcc<float, 32, 32> product;
    GmIn gA(a);
    GmIn gB(b);
    GmW gW(ws);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    TMOV(aLeft, aMat);
    TMOV(bRight, bMat);
    for (int r = 0; r < ROUNDS; ++r) {
        TMATMUL(product, aLeft, bRight);
        if (r > 0) {
            wait_intra_block(PIPE_FIX, 1);
            wait_intra_block(PIPE_FIX, 17);
        }
        TSTORE(gW, product);
        set_intra_block(PIPE_FIX, 0);
        set_intra_block(PIPE_FIX, 16);
    }
    wait_intra_block(PIPE_FIX, 1);
    wait_intra_block(PIPE_FIX, 17);
#endif
#if defined(__DAV_VEC__)
    using HalfT = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    HalfT x;
    int sub = get_subblockid();
    GmHalf gPart(ws + sub * HALF);
    for (int r = 0; r < ROUNDS; ++r) {
        GmHalf gOut(out + (r * 2 + sub) * HALF);
        wait_intra_block(PIPE_MTE2, 0);
        TLOAD(x, gPart);
        set_intra_block(PIPE_MTE2, 1);
        TMULS(x, x, 2.0f);
        TSTORE(gOut, x);
    }
#endif
}
