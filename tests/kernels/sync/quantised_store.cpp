// A quantised store on the cube core: the int32 accumulator of a matmul leaves L0C through the
// fixpipe as int8, each channel scaled by parameters that a TMOV brings from L1 into a Scaling
// tile just before (itself a fixpipe instruction). a2a3's TSTORE_FP drains the fixpipe before
// it stores, so nothing more orders the TMOV before it, nor before the TMOV_FP after the store
// (which has no drain of its own) that reads the same parameters.
#include <pto/pto-inst.hpp>
using namespace pto;

extern "C" __global__ AICORE void quantised_store(__gm__ int8_t *out, __gm__ int8_t *a, __gm__ int8_t *b,
                                                  __gm__ uint64_t *params)
{
#if defined(__DAV_CUBE__)
    using MatA = Tile<TileType::Mat, int8_t, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor, 512>;
    using MatB = Tile<TileType::Mat, int8_t, 32, 32, BLayout::RowMajor, 32, 32, SLayout::ColMajor, 512>;
    using Left = TileLeft<int8_t, 16, 32, 16, 32>;
    using Right = TileRight<int8_t, 32, 32, 32, 32>;
    using Acc = TileAcc<int32_t, 16, 32, 16, 32>;
    using ParamsL1 = Tile<TileType::Mat, uint64_t, 1, 32, BLayout::RowMajor, 1, 32>;
    using Params = Tile<TileType::Scaling, uint64_t, 1, 32>;
    using GmA = GlobalTensor<int8_t, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmB = GlobalTensor<int8_t, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>, Layout::DN>;
    using GmOut = GlobalTensor<int8_t, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmParams = GlobalTensor<uint64_t, Shape<1, 1, 1, 1, 32>, Stride<1, 1, 1, 32, 1>>;
    GmA aGlobal(a);
    GmB bGlobal(b);
    GmOut outGlobal(out);
    GmParams paramGlobal(params);
    MatA aMat;
    MatB bMat;
    Left left;
    Right right;
    Acc acc;
    ParamsL1 staged;
    Params scale;
    MatA requantised;

    TLOAD(aMat, aGlobal);
    TLOAD(bMat, bGlobal);
    TLOAD(staged, paramGlobal);
    TMOV(left, aMat);
    TMOV(right, bMat);
    TMATMUL(acc, left, right);
    TMOV(scale, staged);
    TSTORE_FP(outGlobal, acc, scale);
    TMOV_FP(requantised, acc, scale);
#endif
}
