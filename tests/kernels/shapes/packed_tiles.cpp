// Packed 4-bit tiles as pto-isa sizes them: a column of a float4_e2m1x2_t tile is one byte (a
// pair of values), so a 16 x 32 RowMajor tile has 32-byte rows, and a TRESHAPE to a 16 x 32
// byte tile names the same 512 bytes. The store of the byte view reads what the load wrote:
// with the flag between them the kernel is clean; without it, they race.
#include <pto/pto-inst.hpp>

using namespace pto;

using Fp4Tile = Tile<TileType::Vec, float4_e2m1x2_t, 16, 32, BLayout::RowMajor>;
using ByteTile = Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor>;
using GmFp4 = GlobalTensor<float4_e2m1x2_t, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
using GmBytes = GlobalTensor<uint8_t, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;

template <bool kOrdered>
__global__ AICORE void packed_tiles(__gm__ uint8_t *out, __gm__ float4_e2m1x2_t *in)
{
    Fp4Tile codes;
    ByteTile bytes;
    TASSIGN(codes, 0x0);
    TASSIGN(bytes, 0x0);
    TRESHAPE(bytes, codes);
    GmFp4 src(in);
    GmBytes dst(out);
    TLOAD(codes, src);
    if constexpr (kOrdered) {
        set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    }
    TSTORE(dst, bytes);
}

template __global__ AICORE void packed_tiles<true>(__gm__ uint8_t *, __gm__ float4_e2m1x2_t *);
template __global__ AICORE void packed_tiles<false>(__gm__ uint8_t *, __gm__ float4_e2m1x2_t *);
