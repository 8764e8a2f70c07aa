// A cube kernel that fills an L1 tile with TEXPANDS and moves it into L0A.
// On an L1 tile TEXPANDS is MTE2's work, like TLOAD: the move needs MTE2 -> MTE1 and nothing from
// the vector pipe (kByVector waits for V instead, which orders nothing here).
#include <pto/pto-inst.hpp>

using namespace pto;

using MatA = Tile<TileType::Mat, half, 32, 128, BLayout::ColMajor, 32, 128, SLayout::RowMajor, 512>;
using Left = TileLeft<half, 32, 128, 32, 128>;

template <bool kByVector>
__global__ AICORE void expands_l1(__gm__ half *a)
{
    MatA aMat;
    Left left;
    TASSIGN(aMat, 0x0);
    TASSIGN(left, 0x0);
    TEXPANDS(aMat, (half)0);
    if constexpr (kByVector) {
        set_flag(PIPE_V, PIPE_MTE1, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE1, EVENT_ID0);
    } else {
        set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    }
    TMOV(left, aMat);
}

template __global__ AICORE void expands_l1<false>(__gm__ half *);
template __global__ AICORE void expands_l1<true>(__gm__ half *);
