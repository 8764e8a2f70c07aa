// One cluster (a5), as handoff.cpp, with an optional argument: when `a2` is not null, the cube core
// multiplies `a2` instead of `a` (a second load into the same L1 bytes, ordered by a barrier). Whether
// a pointer argument is null is known only at run time: `check` runs both outcomes.
// Semaphore 0 says "product ready" (cube -> vector core; 16 names the second vector core on the
// cube side), semaphore 1 says "half consumed" (vector -> cube; 17 for the second vector core).
#include "cluster_preambles.hpp"

constexpr int ROUNDS = 2;

extern "C" __global__ AICORE void optional_left(__gm__ float *out, __gm__ float *ws, __gm__ half *a, __gm__ half *b,
                                                  __gm__ half *a2)
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
    if (a2 != nullptr) {
        GmIn gA2(a2);
        pipe_barrier(PIPE_MTE2);  // the second load into aMat lands after the first
        TLOAD(aMat, gA2);
    }
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
