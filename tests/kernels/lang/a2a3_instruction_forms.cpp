// a2a3 instruction forms from pto-isa's single-instruction tests: int8 quantisation with a
// scratch tile for the broadcast and an offset passed by pointer, the compare-and-gather that
// also counts per row (with its scratch tile), two NZ windows cut from one ND tile at run-time
// positions, and the sort header's BLOCK_SIZE.
#include <pto/pto-inst.hpp>

using namespace pto;

extern "C" __global__ AICORE void a2a3_forms(__gm__ float *in, __gm__ float *params, __gm__ uint8_t *out,
                                             uint16_t row0, uint16_t col1)
{
    constexpr int cols = 2 * BLOCK_SIZE;  // 64
    using Src = Tile<TileType::Vec, float, 16, cols>;
    using Param = Tile<TileType::Vec, float, 16, 8, BLayout::RowMajor, 16, 1>;
    using Tmp = Tile<TileType::Vec, float, 16, cols>;
    using Dst = Tile<TileType::Vec, uint8_t, 16, cols>;
    using Nz = Tile<TileType::Vec, float, 16, 16, BLayout::ColMajor, 8, 16, SLayout::RowMajor, 512>;
    using SrcGm = GlobalTensor<float, Shape<1, 1, 1, 16, cols>, Stride<1, 1, 1, cols, 1>>;
    using ParamGm = GlobalTensor<float, Shape<1, 1, 1, 16, 8>, Stride<1, 1, 1, 8, 1>>;
    using DstGm = GlobalTensor<uint8_t, Shape<1, 1, 1, 16, cols>, Stride<1, 1, 1, cols, 1>>;
    Src src;
    Param scale, offset;
    Tmp tmp;
    Dst dst;
    Nz left, right;
    TASSIGN(src, 0x0);
    TASSIGN(scale, 0x1000);
    TASSIGN(offset, 0x1200);
    TASSIGN(tmp, 0x1400);
    TASSIGN(dst, 0x2400);
    TASSIGN(left, 0x2800);
    TASSIGN(right, 0x2C00);
    SrcGm srcGm(in);
    ParamGm scaleGm(params), offsetGm(params + 128);
    DstGm dstGm(out);
    TLOAD(src, srcGm);
    TLOAD(scale, scaleGm);
    TLOAD(offset, offsetGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TQUANT<QuantType::INT8_ASYM, Dst, Src, Param>(dst, src, scale, tmp, &offset);
    TEXTRACT(left, right, src, row0, 0, 0, col1);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dstGm, dst);
}

extern "C" __global__ AICORE void a2a3_compare_gather(__gm__ float *in, __gm__ uint32_t *k, __gm__ int32_t *out)
{
    using Data = Tile<TileType::Vec, float, 4, 64>;
    using Kth = Tile<TileType::Vec, uint32_t, 1, 8>;
    using Index = Tile<TileType::Vec, int32_t, 4, 8>;
    using Count = Tile<TileType::Vec, int32_t, 8, 1, BLayout::ColMajor, 4, 1>;
    using Mask = Tile<TileType::Vec, uint8_t, 4, 32>;
    using DataGm = GlobalTensor<float, Shape<1, 1, 1, 4, 64>, Stride<1, 1, 1, 64, 1>>;
    using KthGm = GlobalTensor<uint32_t, Shape<1, 1, 1, 1, 8>, Stride<1, 1, 1, 8, 1>>;
    using IndexGm = GlobalTensor<int32_t, Shape<1, 1, 1, 4, 8>, Stride<1, 1, 1, 8, 1>>;
    Data data;
    Kth kth;
    Index index;
    Count count;
    Mask mask;
    TASSIGN(data, 0x0);
    TASSIGN(kth, 0x400);
    TASSIGN(index, 0x420);
    TASSIGN(count, 0x4A0);
    TASSIGN(mask, 0x4C0);
    DataGm dataGm(in);
    KthGm kthGm(k);
    IndexGm indexGm(out);
    TLOAD(data, dataGm);
    TLOAD(kth, kthGm);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
    TGATHER<Index, Data, Kth, Count, Mask, CmpMode::GT>(index, data, kth, count, mask, 0);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(indexGm, index);
}
