// The manual twin of billion_auto.cpp: placed tiles and a flag per hand-off.
#include <pto/pto-inst.hpp>

using namespace pto;

__global__ AICORE void billionManual(__gm__ float *out, __gm__ float *in)
{
    using Row = Tile<TileType::Vec, float, 8, 64>;
    using View = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
    Row acc;
    TASSIGN(acc, 0x0);
    for (long long pass = 0; pass < 1000000000; ++pass) {
        View src(in);
        TLOAD(acc, src);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TMULS(acc, acc, 2.0f);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        View dst(out);
        TSTORE(dst, acc);
        set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
        wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    }
}
