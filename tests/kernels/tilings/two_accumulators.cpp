// Two accumulators computed and stored every step (s = q k_j, then o = q v_j), in the shape of
// an attention block. Each accumulator is released after its own store: the next s waits for
// the store of s, not for the store of o that follows it.
#include <pto/pto-inst.hpp>
using namespace pto;
using MatT = Tile<TileType::Mat, half, 64, 64, BLayout::ColMajor, 64, 64, SLayout::RowMajor>;
using MatR = Tile<TileType::Mat, half, 64, 64, BLayout::RowMajor, 64, 64, SLayout::ColMajor>;
using LeftT = TileLeft<half, 64, 64, 64, 64>;
using RightT = TileRight<half, 64, 64, 64, 64>;
using AccT = TileAcc<float, 64, 64, 64, 64>;
using GmIn = GlobalTensor<half, TileShape2D<half, 64, 64, Layout::ND>, BaseShape2D<half, 64, 64, Layout::ND>, Layout::ND>;
using GmInB = GlobalTensor<half, TileShape2D<half, 64, 64, Layout::DN>, BaseShape2D<half, 64, 64, Layout::DN>, Layout::DN>;
using GmOut = GlobalTensor<float, TileShape2D<float, 64, 64, Layout::ND>, BaseShape2D<float, 64, 64, Layout::ND>, Layout::ND>;
extern "C" __global__ AICORE void two_accumulators(__gm__ float *s_out, __gm__ float *o_out, __gm__ half *q, __gm__ half *k, __gm__ half *v)
{
    MatT qm; MatR km; MatR vm; LeftT ql; RightT kr; RightT vr; AccT s; AccT o;
    GmIn gq(q); TLOAD(qm, gq); TMOV(ql, qm);
    for (int j = 0; j < 8; ++j) {
        GmInB gk(k + j * 4096); GmInB gv(v + j * 4096);
        TLOAD(km, gk); TLOAD(vm, gv);
        TMOV(kr, km); TMOV(vr, vm);
        TMATMUL(s, ql, kr);
        GmOut gs(s_out + j * 4096);
        TSTORE(gs, s);
        TMATMUL(o, ql, vr);
        GmOut go(o_out + j * 4096);
        TSTORE(go, o);
    }
}
