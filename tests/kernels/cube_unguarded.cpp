// A cube kernel with no core-type guard: the front end parses it once and takes the core
// type from its tiles (Mat / Left / Right / Acc -> cube).
#include <pto/pto-inst.hpp>

using namespace pto;

using MatA = Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor>;
using MatB = Tile<TileType::Mat, half, 32, 16, BLayout::RowMajor, 32, 16, SLayout::ColMajor>;
using GmA = GlobalTensor<half, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
using GmB = GlobalTensor<half, Shape<1, 1, 1, 32, 16>, Stride<1, 1, 1, 1, 32>, Layout::DN>;
using GmC = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;

extern "C" __global__ AICORE void cube_unguarded(__gm__ float *c, __gm__ half *a, __gm__ half *b)
{
    MatA aMat;
    MatB bMat;
    TileLeft<half, 16, 32> aLeft;
    TileRight<half, 32, 16> bRight;
    TileAcc<float, 16, 16> acc;
    GmA gA(a);
    GmB gB(b);
    GmC gC(c);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    TEXTRACT(aLeft, aMat, 0, 0);
    TEXTRACT(bRight, bMat, 0, 0);
    TMATMUL(acc, aLeft, bRight);
    TSTORE(gC, acc);
}
