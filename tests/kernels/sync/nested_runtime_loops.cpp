// Two nested loops with a runtime trip count, guards on the first, last and odd iterations,
// rings of two and three tiles, and results read back from the output (GM round trips).
#include <pto/pto-inst.hpp>
using namespace pto;
using TileT = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64>;
using RowT = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, 16, 1>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, 16, 64>, Stride<1, 1, 1, 64, 1>>;
using GmRow = GlobalTensor<float, Shape<1, 1, 1, 16, 1>, Stride<1, 1, 1, 1, 1>>;
constexpr int E = 16 * 64;
extern "C" __global__ AICORE void nested_runtime(__gm__ float *out, __gm__ float *side, __gm__ float *in, int n)
{
    TileT acc;
    TileT tmp;
    TileT ring3[3];
    TileT ring2[2];
    RowT row;
    TEXPANDS(acc, 0.5f);
    for (int i = 0; i < n; ++i) {
        if (i == n - 1) {
            GmT back(out + (i + 1) * E);
            TLOAD(acc, back);
            if (i > 0) {
                GmT g(in + i * E);
                TLOAD(ring3[i % 3], g);
                TSUB(ring3[i % 3], acc, ring3[i % 3]);
                TMIN(ring2[i % 2], acc, ring3[i % 3]);
            } else {
                TROWMAX(row, acc, tmp);
                GmRow gr(side + i * 16);
                TSTORE(gr, row);
            }
        } else {
            GmT o(out + i * E);
            TSTORE(o, acc);
            for (int j = 0; j < n; ++j) {
                TMULS(acc, acc, 0.5f);
                GmT g(in + (j + i * 4) * E);
                TLOAD(ring2[i % 2], g);
                TADD(ring3[j % 3], ring2[i % 2], acc);
                GmT o2(out + (j + i * 4 + 2) * E);
                TSTORE(o2, ring3[j % 3]);
            }
        }
        if (i < 2) {
            GmT g(in + (i + 1) * E);
            TLOAD(ring2[i % 2], g);
        } else {
            TMAX(acc, acc, ring2[i % 2]);
        }
        if (i % 2 == 0) {
            TABS(ring2[i % 2], acc);
        }
    }
    GmT last(out);
    TSTORE(last, acc);
}
