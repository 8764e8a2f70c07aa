// a5 MX matmul written with the raw intrinsics, as pto-isa's TEXTRACT test does: the scales go
// from L1 to the scale buffers with load_cbuf_to_ca_mx / _cb_mx (MTE1), at the Left / Right
// tile's address shifted right by 4, and mad_mx (PIPE_M) reads both operands and both scales.
#include <pto/pto-inst.hpp>

using namespace pto;

using Fp4 = float4_e2m1x2_t;
using MatA = Tile<TileType::Mat, Fp4, 64, 256, BLayout::ColMajor, 64, 256, SLayout::RowMajor, 512>;
using MatB = Tile<TileType::Mat, Fp4, 256, 64, BLayout::ColMajor, 256, 64, SLayout::RowMajor, 512>;
using GA = GlobalTensor<Fp4, Shape<1, 1, 1, 64, 256>, Stride<16384, 16384, 16384, 256, 1>>;
using GB = GlobalTensor<Fp4, Shape<1, 1, 1, 256, 64>, Stride<16384, 16384, 16384, 64, 1>>;
using GC = GlobalTensor<float, Shape<1, 1, 1, 64, 64>, Stride<4096, 4096, 4096, 64, 1>>;

extern "C" __global__ AICORE void mx_raw_a5(__gm__ float *c, __gm__ Fp4 *a, __gm__ Fp4 *b, __gm__ uint8_t *sa,
                                            __gm__ uint8_t *sb)
{
    MatA aMat;
    MatB bMat;
    TileLeft<Fp4, 64, 256> left;
    TileRight<Fp4, 256, 64> right;
    TileAcc<float, 64, 64> acc;
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x2000);
    TASSIGN(left, 0x0);
    TASSIGN(right, 0x0);
    TASSIGN(acc, 0x0);
    __cbuf__ uint8_t *aScales = (__cbuf__ uint8_t *)0x4000;  // 64 rows x 8 scales: 16 fractals
    __cbuf__ uint8_t *bScales = (__cbuf__ uint8_t *)0x4200;
    GA ga(a);
    GB gb(b);
    GC gc(c);
    TLOAD(aMat, ga);
    TLOAD(bMat, gb);
    copy_gm_to_cbuf_align_v2(aScales, sa, 0, 1, 512, 0, 0, 0, 0, 0, 0);
    copy_gm_to_cbuf_align_v2(bScales, sb, 0, 1, 512, 0, 0, 0, 0, 0, 0);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TEXTRACT(left, aMat, 0, 0);
    TEXTRACT(right, bMat, 0, 0);
    uint64_t aAt = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(left.data())) >> 4;
    uint64_t bAt = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(right.data())) >> 4;
    load_cbuf_to_ca_mx(aAt, static_cast<__cbuf__ void *>(aScales), 0, 0, 4, 4, 4, 4);
    load_cbuf_to_cb_mx(bAt, static_cast<__cbuf__ void *>(bScales), 0, 0, 4, 4, 4, 4);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    mad_mx(acc.data(), left.data(), right.data(), 64, 256, 64, 0, false, false, true);
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(gc, acc);
}
