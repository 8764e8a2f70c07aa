// a5 MX matmul: 4-bit operands with per-group 8-bit scales. The scales move from L1 into their
// own L0A / L0B scale buffers (MTE1); TMATMUL_MX reads all four; the second, accumulating call
// adds into the same L0C tile and needs no barrier (in-order accumulation). The 4-bit Left and
// Right tiles take two values a byte: the pong tiles sit right after 8 KiB pings. Without the
// MTE1 -> M flag, the matmul reads the scales while they may still be moving.
#include <pto/pto-inst.hpp>

using namespace pto;

using Fp4 = float4_e2m1x2_t;
using Scale = float8_e8m0_t;
using MatA = Tile<TileType::Mat, Fp4, 64, 256, BLayout::ColMajor, 64, 256, SLayout::RowMajor, 512>;
using MatB = Tile<TileType::Mat, Fp4, 256, 64, BLayout::ColMajor, 256, 64, SLayout::RowMajor, 512>;
using MatScaleA = Tile<TileType::Mat, Scale, 64, 8, BLayout::RowMajor, 64, 8, SLayout::RowMajor, 32>;
using MatScaleB = Tile<TileType::Mat, Scale, 8, 64, BLayout::ColMajor, 8, 64, SLayout::ColMajor, 32>;
using GA = GlobalTensor<Fp4, Shape<1, 1, 1, 64, 256>, Stride<16384, 16384, 16384, 256, 1>>;
using GB = GlobalTensor<Fp4, Shape<1, 1, 1, 256, 64>, Stride<16384, 16384, 16384, 64, 1>>;
using GSA = GlobalTensor<Scale, Shape<1, 1, 1, 64, 8>, Stride<512, 512, 512, 8, 1>>;
using GSB = GlobalTensor<Scale, Shape<1, 1, 1, 8, 64>, Stride<512, 512, 512, 64, 1>>;
using GC = GlobalTensor<float, Shape<1, 1, 1, 64, 64>, Stride<4096, 4096, 4096, 64, 1>>;

template <bool kOrdered>
__global__ AICORE void mx_matmul(__gm__ float *c, __gm__ Fp4 *a, __gm__ Fp4 *b, __gm__ Scale *sa, __gm__ Scale *sb)
{
    MatA aMat;
    MatB bMat;
    MatScaleA saMat;
    MatScaleB sbMat;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x2000);
    TASSIGN(saMat, 0x4000);
    TASSIGN(sbMat, 0x4200);
    TileLeft<Fp4, 64, 256> left[2];
    TileRight<Fp4, 256, 64> right[2];
    TileLeftScale<Scale, 64, 8> leftScale;
    TileRightScale<Scale, 8, 64> rightScale;
    TileAcc<float, 64, 64> acc;
    TASSIGN(left[0], 0x0);
    TASSIGN(left[1], 0x2000);
    TASSIGN(right[0], 0x0);
    TASSIGN(right[1], 0x2000);
    TASSIGN(leftScale, 0x0);
    TASSIGN(rightScale, 0x0);
    TASSIGN(acc, 0x0);
    GA ga(a);
    GB gb(b);
    GSA gsa(sa);
    GSB gsb(sb);
    GC gc(c);
    TLOAD(aMat, ga);
    TLOAD(bMat, gb);
    TLOAD(saMat, gsa);
    TLOAD(sbMat, gsb);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TEXTRACT(left[0], aMat, 0, 0);
    TEXTRACT(right[0], bMat, 0, 0);
    TEXTRACT(left[1], aMat, 0, 0);
    TEXTRACT(right[1], bMat, 0, 0);
    TMOV(leftScale, saMat);
    TMOV(rightScale, sbMat);
    if constexpr (kOrdered) {
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    }
    TMATMUL_MX(acc, left[0], leftScale, right[0], rightScale);
    TMATMUL_MX(acc, acc, left[1], leftScale, right[1], rightScale);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(gc, acc);
}

template __global__ AICORE void mx_matmul<true>(__gm__ float *, __gm__ Fp4 *, __gm__ Fp4 *, __gm__ Scale *,
                                                __gm__ Scale *);
template __global__ AICORE void mx_matmul<false>(__gm__ float *, __gm__ Fp4 *, __gm__ Fp4 *, __gm__ Scale *,
                                                 __gm__ Scale *);
