// Accumulator moves tagged with a store phase (TMOV<STPhase::...>): the plain, relu,
// fixpipe-buffer and scalar quantisation forms, each out of L0C into its own L1 tile.
#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void acc_moves_phased(__gm__ uint64_t *params)
{
#if defined(__DAV_CUBE__)
    using Acc = TileAcc<int32_t, 16, 32>;
    using Mat = Tile<TileType::Mat, int8_t, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor, 512>;
    using ParamsL1 = Tile<TileType::Mat, uint64_t, 1, 32, BLayout::RowMajor, 1, 32>;
    using Params = Tile<TileType::Scaling, uint64_t, 1, 32>;
    GlobalTensor<uint64_t, Shape<1, 1, 1, 1, 32>, Stride<1, 1, 1, 32, 1>> paramGlobal(params);
    Acc acc;
    Mat plain;
    Mat relu;
    Mat scaled;
    Mat quant;
    ParamsL1 staged;
    Params scale;
    TASSIGN(acc, 0x0);
    TASSIGN(staged, 0x0);
    TASSIGN(plain, 0x100);
    TASSIGN(relu, 0x300);
    TASSIGN(scaled, 0x500);
    TASSIGN(quant, 0x700);
    TASSIGN(scale, 0x0);

    TLOAD(staged, paramGlobal);
    set_flag(PIPE_MTE2, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_FIX, EVENT_ID0);
    TMOV(scale, staged);
    pipe_barrier(PIPE_FIX);
    TMOV<STPhase::Final, Mat, Acc>(plain, acc);
    TMOV<STPhase::Partial, Mat, Acc, ReluPreMode::NormalRelu>(relu, acc);
    TMOV_FP<STPhase::Final, Mat, Acc, Params>(scaled, acc, scale);
    TMOV<STPhase::Final, Mat, Acc>(quant, acc, 2);
#endif
}
