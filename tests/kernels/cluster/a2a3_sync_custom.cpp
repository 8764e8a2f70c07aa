// One a2a3 cluster handing a product through a GM workspace with a flag-pair object: on a2a3
// `TSync_Custom` signals with ffts flags (mode 2), `ready` using flag 0 ("stored": the cube core
// raises it on both vector cores) and flag 1 ("read": the cube core's wait passes once both
// vector cores raised it). Every wait stalls the whole waiting core. The cube core multiplies
// twice; each vector core triples its 16-row half of each product into `out`.
#include <pto/pto-inst.hpp>
#include <pto/npu/a2a3/custom/TSync_Custom.hpp>

using namespace pto;

constexpr int ROUNDS = 2;
constexpr int HALF = 16 * 32;
enum Flags : int { PRODUCT_READY = 0 };

extern "C" __global__ AICORE void a2a3_sync_custom(__gm__ float *out, __gm__ float *ws, __gm__ half *a,
                                                   __gm__ half *b)
{
    constexpr TSync_Custom<SyncOpType::TSTORE_C2GM, SyncOpType::TLOAD> ready = {PRODUCT_READY};
#if defined(__DAV_C220_CUBE__)
    using MatT = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using GmIn = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmW = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    MatT aMat;
    MatT bMat;
    TileLeft<half, 32, 32> aLeft;
    TileRight<half, 32, 32> bRight;
    TileAcc<float, 32, 32> product;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x800);
    TASSIGN(aLeft, 0x0);
    TASSIGN(bRight, 0x0);
    TASSIGN(product, 0x0);
    GmIn gA(a);
    GmIn gB(b);
    GmW gW(ws);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(aLeft, aMat);
    TMOV(bRight, bMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    for (int r = 0; r < ROUNDS; ++r) {
        TMATMUL(product, aLeft, bRight);
        set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
        if (r > 0) {
            ready.allocate();  // both vector cores have read the last product
        }
        TSTORE(gW, product);
        ready.record();
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
    }
    ready.allocate();  // the last product's reads
#endif
#if defined(__DAV_C220_VEC__)
    using HalfT = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    HalfT x;
    TASSIGN(x, 0x0);
    int sub = get_subblockid();
    GmHalf gPart(ws + sub * HALF);
    for (int r = 0; r < ROUNDS; ++r) {
        GmHalf gOut(out + (r * 2 + sub) * HALF);
        ready.wait();
        TLOAD(x, gPart);
        ready.free();
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TMULS(x, x, 3.0f);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(gOut, x);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    }
#endif
}
