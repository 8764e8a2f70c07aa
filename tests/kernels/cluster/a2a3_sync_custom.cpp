// One a2a3 cluster handing a product through a GM workspace with a flag-pair object: on a2a3
// `TSync_Custom` signals with ffts flags (mode 2), `ready` using flag 0 ("stored": the cube core
// raises it on both vector cores) and flag 1 ("read": the cube core's wait passes once both
// vector cores raised it). Every wait stalls the whole waiting core. The cube core multiplies
// twice; each vector core triples its 16-row half of each product into `out`.
#include "cluster_preambles.hpp"
#include <pto/npu/a2a3/custom/TSync_Custom.hpp>

constexpr int ROUNDS = 2;
enum Flags : int { PRODUCT_READY = 0 };

extern "C" __global__ AICORE void a2a3_sync_custom(__gm__ float *out, __gm__ float *ws, __gm__ half *a,
                                                   __gm__ half *b)
{
    constexpr TSync_Custom<SyncOpType::TSTORE_C2GM, SyncOpType::TLOAD> ready = {PRODUCT_READY};
#if defined(__DAV_C220_CUBE__)
    MatT aMat;
    MatT bMat;
    LeftT aLeft;
    RightT bRight;
    AccT product;
    LoadOperands(aMat, bMat, aLeft, bRight, a, b);
    TASSIGN(product, 0x0);
    GmW gW(ws);
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
