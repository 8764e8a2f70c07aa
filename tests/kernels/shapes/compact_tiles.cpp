// Compact-mode cube tiles store only their valid region, densely in whole fractals: the Left tile
// declared 256 x 256 halves (128 KiB, twice L0A) holds its 32 x 64 valid region in 4 KiB, and the
// next Left tile sits right after it. Without the MTE1 -> M flag the matmul reads tiles the
// extracts may still write.
#include <pto/pto-inst.hpp>

using namespace pto;

using MatA = Tile<TileType::Mat, half, 32, 128, BLayout::ColMajor, 32, 128, SLayout::RowMajor, 512>;
using MatB = Tile<TileType::Mat, half, 64, 32, BLayout::ColMajor, 64, 32, SLayout::RowMajor, 512>;
using Left = TileLeftCompact<half, 256, 256, 32, 64>;
using Right = TileRightCompact<half, 256, 256, 64, 32>;
using Acc = TileAccCompact<float, 256, 256, 32, 32>;
using GA = GlobalTensor<half, Shape<1, 1, 1, 32, 128>, Stride<4096, 4096, 4096, 128, 1>>;
using GB = GlobalTensor<half, Shape<1, 1, 1, 64, 32>, Stride<2048, 2048, 2048, 32, 1>>;
using GC = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1024, 1024, 1024, 32, 1>>;

template <bool kOrdered>
__global__ AICORE void compact_tiles(__gm__ float *c, __gm__ half *a, __gm__ half *b)
{
    MatA aMat;
    MatB bMat;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x2000);
    Left left0;
    Left left1;
    Right right;
    Acc acc;
    TASSIGN(left0, 0x0);
    TASSIGN(left1, 0x1000);
    TASSIGN(right, 0x0);
    TASSIGN(acc, 0x0);
    GA ga(a);
    GB gb(b);
    GC gc(c);
    TLOAD(aMat, ga);
    TLOAD(bMat, gb);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TEXTRACT(left0, aMat, 0, 0);
    TEXTRACT(left1, aMat, 0, 64);
    TEXTRACT(right, bMat, 0, 0);
    if constexpr (kOrdered) {
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    }
    TMATMUL(acc, left0, right);
    TMATMUL_ACC(acc, acc, left1, right);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(gc, acc);
}

template __global__ AICORE void compact_tiles<true>(__gm__ float *, __gm__ half *, __gm__ half *);
template __global__ AICORE void compact_tiles<false>(__gm__ float *, __gm__ half *, __gm__ half *);
