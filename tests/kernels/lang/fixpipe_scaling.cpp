// A fixpipe move from an accumulator with its Scaling tile as third operand: the scaling
// parameters are read, unlike the scratch tile or second destination that three tiles mean
// elsewhere.
#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void fp_move(__gm__ float *out)
{
#if defined(__DAV_CUBE__)
    using Acc = TileAcc<float, 16, 16>;
    using Mat = Tile<TileType::Mat, half, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512>;
    using Fp = Tile<TileType::Scaling, uint64_t, 1, 16>;
    Acc acc;
    Mat mat;
    Fp fp;
    TASSIGN(acc, 0x0);
    TASSIGN(mat, 0x0);
    TASSIGN(fp, 0x0);
    TMOV<Mat, Acc, Fp, AccToVecMode::SingleModeVec0>(mat, acc, fp);
#endif
}
