// What the hand-written cluster kernels of this folder share, so that each kernel file holds only
// what it tests: which core a line is compiled for, the tile and tensor types of a 32x32 product
// and of a vector core's 16-row half of it, and the cube core's way to its operands.
#pragma once
#include <pto/pto-inst.hpp>

using namespace pto;

// The core the file is compiled for, for `if constexpr` (a2a3's pto-isa FIFOs and the kernels
// written like them test these instead of #if).
#ifdef __DAV_CUBE__
constexpr bool ON_CUBE = true;
#else
constexpr bool ON_CUBE = false;
#endif
#ifdef __DAV_VEC__
constexpr bool ON_VEC = true;
#else
constexpr bool ON_VEC = false;
#endif

// The cube core multiplies two 32x32 half matrices into a 32x32 float product.
using MatT = Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, 32, 32, SLayout::RowMajor>;
using LeftT = TileLeft<half, 32, 32>;
using RightT = TileRight<half, 32, 32>;
using AccT = TileAcc<float, 32, 32>;
using GmIn = GlobalTensor<half, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
using GmW = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;

// Each vector core works on its 16-row half of a product: HALF floats, `get_subblockid()` of them in.
constexpr int HALF = 16 * 32;
using HalfT = Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, 16, 32>;
using GmHalf = GlobalTensor<float, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;

// The cube core's operands of every product: `a` and `b` loaded into L1 (0x0 and 0x800) and moved
// into L0A / L0B (both at 0x0), each step waiting for the one before; a TMATMUL may follow at once.
AICORE inline void LoadOperands(MatT &aMat, MatT &bMat, LeftT &aLeft, RightT &bRight, __gm__ half *a, __gm__ half *b)
{
    TASSIGN(aMat, 0x0);
    TASSIGN(bMat, 0x800);
    TASSIGN(aLeft, 0x0);
    TASSIGN(bRight, 0x0);
    GmIn gA(a);
    GmIn gB(b);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
    TMOV(aLeft, aMat);
    TMOV(bRight, bMat);
    set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
}
