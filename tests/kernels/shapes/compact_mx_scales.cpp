// a5 MX matmul over two K steps with compact scale tiles, ping and pong. A compact scale tile
// stores its valid region in 32-byte fractals of 16 x 2 (left scales: 16 rows of a column pair;
// right scales: a row pair of 16 columns): the 256 x 8 left scales take 2 KiB, so the pong sits
// at 0x800 and both fit the 4 KiB left-scale buffer; the 8 x 64 right scales take 512 B, pong at
// 0x200. Rounding both sides of a one-byte scale tile to 32 would count 8 KiB and 2 KiB: past the
// buffer, and overlapping.
#include <pto/pto-inst.hpp>

using namespace pto;

using Fp4 = float4_e2m1x2_t;
using Scale = float8_e8m0_t;
using MatA = Tile<TileType::Mat, Fp4, 256, 512, BLayout::ColMajor, 256, 512, SLayout::RowMajor, 512>;
using MatB = Tile<TileType::Mat, Fp4, 512, 64, BLayout::ColMajor, 512, 64, SLayout::RowMajor, 512>;
using MatScaleA = Tile<TileType::Mat, Scale, 256, 16, BLayout::RowMajor, 256, 16, SLayout::RowMajor, 32>;
using MatScaleB = Tile<TileType::Mat, Scale, 16, 64, BLayout::ColMajor, 16, 64, SLayout::ColMajor, 32>;
using GA = GlobalTensor<Fp4, Shape<1, 1, 1, 256, 512>, Stride<131072, 131072, 131072, 512, 1>>;
using GB = GlobalTensor<Fp4, Shape<1, 1, 1, 512, 64>, Stride<32768, 32768, 32768, 64, 1>>;
using GSA = GlobalTensor<Scale, Shape<1, 1, 1, 256, 16>, Stride<4096, 4096, 4096, 16, 1>>;
using GSB = GlobalTensor<Scale, Shape<1, 1, 1, 16, 64>, Stride<1024, 1024, 1024, 64, 1>>;
using GC = GlobalTensor<float, Shape<1, 1, 1, 256, 64>, Stride<16384, 16384, 16384, 64, 1>>;

__global__ AICORE void compact_mx_scales(__gm__ float *c, __gm__ Fp4 *a, __gm__ Fp4 *b, __gm__ Scale *sa,
                                         __gm__ Scale *sb)
{
    MatA aMat;
    MatB bMat;
    MatScaleA saMat;
    MatScaleB sbMat;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x10000);
    TASSIGN(saMat, 0x14000);
    TASSIGN(sbMat, 0x15000);
    TileLeft<Fp4, 256, 256> left[2];
    TileRight<Fp4, 256, 64> right[2];
    TileLeftScaleCompact<Scale, 256, 8> leftScale[2];
    TileRightScaleCompact<Scale, 8, 64> rightScale[2];
    TileAcc<float, 256, 64> acc;
    TASSIGN(left[0], 0x0);
    TASSIGN(left[1], 0x8000);
    TASSIGN(right[0], 0x0);
    TASSIGN(right[1], 0x2000);
    TASSIGN(leftScale[0], 0x0);
    TASSIGN(leftScale[1], 0x800);
    TASSIGN(rightScale[0], 0x0);
    TASSIGN(rightScale[1], 0x200);
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
    TEXTRACT(leftScale[0], saMat, 0, 0);
    TEXTRACT(rightScale[0], sbMat, 0, 0);
    TEXTRACT(left[1], aMat, 0, 256);
    TEXTRACT(right[1], bMat, 256, 0);
    TEXTRACT(leftScale[1], saMat, 0, 8);
    TEXTRACT(rightScale[1], sbMat, 8, 0);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    TMATMUL_MX(acc, left[0], leftScale[0], right[0], rightScale[0]);
    TMATMUL_MX(acc, acc, left[1], leftScale[1], right[1], rightScale[1]);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(gc, acc);
}
