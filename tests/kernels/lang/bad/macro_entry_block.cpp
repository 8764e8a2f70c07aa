// An entry a macro writes with a nested block in its body: not read.
#include <pto/pto-inst.hpp>

using namespace pto;

#define BLOCK_CASE(N)                                                       \
    extern "C" __global__ AICORE void blockCase##N(__gm__ float *out)       \
    {                                                                       \
        if (N > 0) {                                                        \
            set_flag(PIPE_S, PIPE_MTE2, EVENT_ID0);                         \
            wait_flag(PIPE_S, PIPE_MTE2, EVENT_ID0);                        \
        }                                                                   \
    }

BLOCK_CASE(1)
