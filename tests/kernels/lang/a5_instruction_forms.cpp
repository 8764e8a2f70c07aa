// a5 instruction forms from pto-isa's single-instruction tests: MX quantisation writing exponents,
// maxima and scales through pointer operands, exponents moved into ZZ order through a scratch
// tile (TMOV<0>), the compare-and-gather whose a5 form has no use for its scratch tile (never
// placed here), random numbers from a key and a counter, two windows cut from one tile at once,
// and the names a5 code computes with (BLOCK_SIZE, CCE_VL, GetScaleAddr).
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void a5_forms(__gm__ float *in, __gm__ uint8_t *exps, __gm__ int8_t *out)
{
    constexpr int lanes = CCE_VL / sizeof(float);                  // 64
    constexpr int cols = (lanes + BLOCK_SIZE - 1) / BLOCK_SIZE * BLOCK_SIZE; // 64
    using Src = Tile<TileType::Vec, float, 8, cols>;
    using Fp8 = Tile<TileType::Vec, int8_t, 8, cols>;
    using Exp = Tile<TileType::Vec, uint8_t, 1, 32, BLayout::RowMajor, 1, 16>;
    using Stat = Tile<TileType::Vec, float, 1, 16>;
    using Zz = Tile<TileType::Vec, uint8_t, 1, 32>;
    using SrcGm = GlobalTensor<float, Shape<1, 1, 1, 8, cols>, Stride<1, 1, 1, cols, 1>>;
    using OutGm = GlobalTensor<int8_t, Shape<1, 1, 1, 8, cols>, Stride<1, 1, 1, cols, 1>>;
    using ExpGm = GlobalTensor<uint8_t, Shape<1, 1, 1, 1, 32>, Stride<1, 1, 1, 32, 1>>;
    Src src;
    Fp8 fp8;
    Exp exp;
    Stat maxima, scales;
    Zz zz, scratch;
    TASSIGN(src, 0x0);
    TASSIGN(fp8, 0x800);
    TASSIGN(exp, 0xC00);
    TASSIGN(maxima, 0xC20);
    TASSIGN(scales, 0xC60);
    TASSIGN(zz, 0xCA0);
    TASSIGN(scratch, 0xCC0);
    SrcGm srcGm(in);
    OutGm outGm(out);
    ExpGm expGm(exps);
    TLOAD(src, srcGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TQUANT<QuantType::MXFP8, Fp8, Src, Exp, Stat, Stat, QuantScaleAlg::NV>(fp8, src, &exp, &maxima, &scales);
    pipe_barrier(PIPE_V);
    TMOV<0>(zz, exp, scratch);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(outGm, fp8);
    TSTORE(expGm, zz);
}

extern "C" __global__ AICORE void a5_gather_random(__gm__ float *in, __gm__ uint32_t *k, __gm__ int32_t *out)
{
    using Data = Tile<TileType::Vec, float, 4, 64>;
    using Kth = Tile<TileType::Vec, uint32_t, 1, 8>;
    using Index = Tile<TileType::Vec, int32_t, 4, 8>;
    using Count = Tile<TileType::Vec, int32_t, 8, 1, BLayout::ColMajor, 4, 1>;
    using Mask = Tile<TileType::Vec, uint8_t, 4, 32>;
    using Noise = Tile<TileType::Vec, uint32_t, 4, 16>;
    using DataGm = GlobalTensor<float, Shape<1, 1, 1, 4, 64>, Stride<1, 1, 1, 64, 1>>;
    using KthGm = GlobalTensor<uint32_t, Shape<1, 1, 1, 1, 8>, Stride<1, 1, 1, 8, 1>>;
    using IndexGm = GlobalTensor<int32_t, Shape<1, 1, 1, 4, 8>, Stride<1, 1, 1, 8, 1>>;
    Data data;
    Kth kth;
    Index index;
    Count count;
    Mask mask;  // a5's compare-and-gather ignores it: it needs no address
    Noise noise;
    TASSIGN(data, 0x0);
    TASSIGN(kth, 0x400);
    TASSIGN(index, 0x420);
    TASSIGN(count, 0x4A0);
    TASSIGN(noise, 0x4C0);
    DataGm dataGm(in);
    KthGm kthGm(k);
    IndexGm indexGm(out);
    TLOAD(data, dataGm);
    TLOAD(kth, kthGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TGATHER<Index, Data, Kth, Count, Mask, CmpMode::GT>(index, data, kth, count, mask, 0);
    TRandomKey key = {7u, 11u};
    TRandomCounter counter = {0u, 1u, 2u, 3u};
    TRANDOM(noise, key, counter);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    TSTORE(indexGm, index);
}

extern "C" __global__ AICORE void a5_scale_addresses(__gm__ float *in)
{
    // An MX scale tile sits at its data tile's address in 16-byte units; here the rule only
    // places a second UB tile, to show the value the front end computes.
    using Data = Tile<TileType::Vec, float, 8, 64>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 8, 64>, Stride<1, 1, 1, 64, 1>>;
    Data a, b;
    TASSIGN(a, 0x4000);
    TASSIGN(b, GetScaleAddr(a.data()));
    Gm gm(in);
    TLOAD(a, gm);
    TLOAD(b, gm);
}
