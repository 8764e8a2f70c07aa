// The fixpipe quantisation forms: an accumulator leaves L0C through the fixpipe, which scales
// each channel by the parameters held in a Scaling (fixpipe buffer) tile. The parameters reach
// the fixpipe buffer by a TMOV from L1, itself a fixpipe instruction: every later use of them
// waits for it with a PIPE_FIX barrier.
#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void fp_forms(__gm__ int8_t *out, __gm__ uint64_t *params)
{
#if defined(__DAV_CUBE__)
    using Acc = TileAcc<int32_t, 16, 32>;
    using Part = TileAcc<int32_t, 16, 16>;
    using Mat = Tile<TileType::Mat, int8_t, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor, 512>;
    using ParamsL1 = Tile<TileType::Mat, uint64_t, 1, 32, BLayout::RowMajor, 1, 32>;
    using Params = Tile<TileType::Scaling, uint64_t, 1, 32>;
    using OutShape = Shape<1, 1, 1, 16, 32>;
    using OutStride = Stride<1, 1, 1, 32, 1>;
    using ParamShape = Shape<1, 1, 1, 1, 32>;
    using ParamStride = Stride<1, 1, 1, 32, 1>;
    GlobalTensor<int8_t, OutShape, OutStride> outGlobal(out);
    GlobalTensor<uint64_t, ParamShape, ParamStride> paramGlobal(params);
    Acc acc;
    Part part;
    Mat whole;
    Mat window;
    Mat inserted;
    ParamsL1 staged;
    Params scale;
    TASSIGN(acc, 0x0);
    TASSIGN(part, 0x0);
    TASSIGN(staged, 0x0);
    TASSIGN(whole, 0x100);
    TASSIGN(window, 0x300);
    TASSIGN(inserted, 0x500);
    TASSIGN(scale, 0x0);

    TLOAD(staged, paramGlobal);
    set_flag(PIPE_MTE2, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_FIX, EVENT_ID0);
    TMOV(scale, staged);
    pipe_barrier(PIPE_FIX);
    TSTORE_FP(outGlobal, acc, scale);
    TMOV_FP(whole, acc, scale);
    TEXTRACT_FP(window, acc, scale, 0, 16);
    TINSERT_FP(inserted, part, scale, 0, 16);
#endif
}
