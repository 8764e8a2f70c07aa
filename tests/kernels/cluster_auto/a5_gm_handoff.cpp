// AUTO cluster kernel (a5), cube -> vector through a GM workspace guarded by a flag pair
// (TSync_Custom, semaphores 2 "written" and 3 "read"): the cube core computes ROUNDS products
// into `ws`, waiting before each overwrite until both vector cores have read the last one;
// each vector core reads its half of each product, negates it and stores it.
#include <pto/pto-inst.hpp>
#include <pto/npu/a5/custom/TSync_Custom.hpp>

using namespace pto;

constexpr int ROUNDS = 3;
constexpr int HALF_ELEMS = 16 * 32;

extern "C" __global__ AICORE void gm_handoff(__gm__ float *out, __gm__ float *ws, __gm__ half *a,
                                             __gm__ half *b)
{
    constexpr TSync_Custom<SyncOpType::TSTORE_C2GM, SyncOpType::TLOAD> product = {2};
#if defined(__DAV_CUBE__)
    using Operand = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
    using GmOperand = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    using GmWork = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    Operand lhsL1;
    Operand rhsL1;
    TileLeft<half, 32, 32> lhs;
    TileRight<half, 32, 32> rhs;
    TileAcc<float, 32, 32> acc;
    GmOperand gA(a);
    GmOperand gB(b);
    GmWork gWork(ws);
    TLOAD(lhsL1, gA);
    TLOAD(rhsL1, gB);
    TMOV(lhs, lhsL1);
    TMOV(rhs, rhsL1);
    for (int r = 0; r < ROUNDS; ++r) {
        TMATMUL(acc, lhs, rhs);
        if (r > 0) {
            product.allocate();  // both vector cores have read the previous product
        }
        TSTORE(gWork, acc);
        product.record();
    }
    product.allocate();  // the last product has been read
#endif
#if defined(__DAV_VEC__)
    using Half = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
    using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    Half part;
    Half negated;
    int sub = get_subblockid();
    GmHalf gPart(ws + sub * HALF_ELEMS);
    for (int r = 0; r < ROUNDS; ++r) {
        GmHalf gOut(out + (r * 2 + sub) * HALF_ELEMS);
        product.wait();
        TLOAD(part, gPart);
        product.free();
        TMULS(negated, part, -1.0f);
        TSTORE(gOut, negated);
    }
#endif
}
