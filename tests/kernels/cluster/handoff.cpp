// One cluster (a5): the cube core multiplies two 32x32 half matrices into a float product in a GM
// workspace, twice; each vector core doubles its 16-row half of the product into `out`.
// Semaphore 0 says "product ready" (cube -> vector core; 16 names the second vector core on the
// cube side), semaphore 1 says "half consumed" (vector -> cube; 17 for the second vector core).
#include "cluster_preambles.hpp"

constexpr int ROUNDS = 2;

extern "C" __global__ AICORE void handoff(__gm__ float *out, __gm__ float *ws, __gm__ half *a, __gm__ half *b)
{
#if defined(__DAV_CUBE__)
    MatT aMat;
    MatT bMat;
    LeftT aLeft;
    RightT bRight;
    AccT product;
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
            wait_intra_block(PIPE_FIX, 1);   // the first vector core has read the last product
            wait_intra_block(PIPE_FIX, 17);  // and so has the second
        }
        TSTORE(gW, product);
        set_intra_block(PIPE_FIX, 0);
        set_intra_block(PIPE_FIX, 16);
        set_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_FIX, PIPE_M, EVENT_ID0);
    }
    wait_intra_block(PIPE_FIX, 1);
    wait_intra_block(PIPE_FIX, 17);
#endif
#if defined(__DAV_VEC__)
    HalfT x;
    TASSIGN(x, 0x0);
    int sub = get_subblockid();
    GmHalf gPart(ws + sub * HALF);
    for (int r = 0; r < ROUNDS; ++r) {
        GmHalf gOut(out + (r * 2 + sub) * HALF);
        wait_intra_block(PIPE_MTE2, 0);
        TLOAD(x, gPart);
        set_intra_block(PIPE_MTE2, 1);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TMULS(x, x, 2.0f);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(gOut, x);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    }
#endif
}
