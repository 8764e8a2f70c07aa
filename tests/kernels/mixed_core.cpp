// One entry with code for the vector and the cube core of both architectures: the arch
// guards decide which instructions exist, --core picks one core type.
#include <pto/pto-inst.hpp>

using namespace pto;

#if __CCE_AICORE__ == 220
constexpr int VEC_COLS = 64;
#else
constexpr int VEC_COLS = 128;
#endif

template <int COLS>
AICORE void scaleRows(__gm__ float *out, __gm__ float *in)
{
    using TileT = Tile<TileType::Vec, float, 16, COLS, BLayout::RowMajor, 16, COLS>;
    using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, COLS>, Stride<1, 1, 1, COLS, 1>>;
    TileT x;
    GmT src(in);
    GmT dst(out);
    TLOAD(x, src);
    TMULS(x, x, 3.0f);
    TSTORE(dst, x);
}

template <typename TIn, typename TOut>
AICORE void matmulTile(__gm__ TOut *c, __gm__ TIn *a, __gm__ TIn *b)
{
    using MatA = Tile<TileType::Mat, TIn, 32, 64, BLayout::ColMajor, 32, 64, SLayout::RowMajor>;
    using MatB = Tile<TileType::Mat, TIn, 64, 32, BLayout::RowMajor, 64, 32, SLayout::ColMajor>;
    using GmA = GlobalTensor<TIn, Shape<1, 1, 1, 32, 64>, Stride<1, 1, 1, 64, 1>>;
    using GmB = GlobalTensor<TIn, Shape<1, 1, 1, 64, 32>, Stride<1, 1, 1, 1, 64>, Layout::DN>;
    using GmC = GlobalTensor<TOut, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 32, 1>>;
    MatA aMat;
    MatB bMat;
    TileLeft<TIn, 32, 64> aLeft;
    TileRight<TIn, 64, 32> bRight;
    TileAcc<TOut, 32, 32> cAcc;
    GmA gA(a);
    GmB gB(b);
    GmC gC(c);
    TLOAD(aMat, gA);
    TLOAD(bMat, gB);
    TMOV(aLeft, aMat);
    TMOV(bRight, bMat);
    TMATMUL(cAcc, aLeft, bRight);
    TSTORE(gC, cAcc);
}

extern "C" __global__ AICORE void mixed(__gm__ uint8_t *c, __gm__ uint8_t *a, __gm__ uint8_t *b)
{
#if defined(__DAV_C220_VEC__) || defined(__DAV_C310_VEC__)
    scaleRows<VEC_COLS>(reinterpret_cast<__gm__ float *>(c), reinterpret_cast<__gm__ float *>(a));
#endif
#if defined(__DAV_C220_CUBE__) || defined(__DAV_C310_CUBE__)
    matmulTile<half, float>(reinterpret_cast<__gm__ float *>(c), reinterpret_cast<__gm__ half *>(a),
                            reinterpret_cast<__gm__ half *>(b));
#endif
}
