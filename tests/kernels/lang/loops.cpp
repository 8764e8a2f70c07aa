// Loops that are not `for (int i = a; i < b; i += c)`: an empty init-statement, geometric steps
// (`*= 4`, `/= 2`, `>>= 1`), a condition written as an expression of the variable, a variable
// declared before its loop and used after it, and a grid-stride loop over the cores.
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int COLS = 512;

extern "C" __global__ AICORE void loops(__gm__ float *out, __gm__ float *in, int32_t rows)
{
    using Row = Tile<TileType::Vec, float, 1, COLS, BLayout::RowMajor, 1, -1>;
    using Gm = GlobalTensor<float, Shape<1, 1, 1, 1, COLS>, Stride<1, 1, 1, COLS, 1>>;
    Row x(COLS);
    Gm src(in), dst(out);
    TLOAD(x, src);

    // Widths 16, 64, 256: each pass doubles a prefix four times as wide as the last.
    uint32_t width = 16;
    for (; width * 2 <= COLS; width *= 4) {
        Row part(width);
        TRESHAPE(part, x);
        TADDS(part, part, 1.0f);
    }
    // width left the loop at 1024: halve it back down to 8.
    for (uint32_t half = width / 2; half >= 8; half /= 2) {
        Row part(half);
        TRESHAPE(part, x);
        TMULS(part, part, 0.5f);
    }
    for (int shift = 256; shift > 0; shift >>= 1) {
        Row part(shift);
        TRESHAPE(part, x);
        TADDS(part, part, 2.0f);
    }
    TSTORE(dst, x);

    // Grid-stride: core b handles rows b, b + cores, b + 2 * cores, ...
    int r;
    for (r = get_block_idx(); r < rows; r += get_block_num()) {
        Gm rowIn(in + (r + 1) * COLS), rowOut(out + (r + 1) * COLS);
        TLOAD(x, rowIn);
        TADDS(x, x, 3.0f);
        TSTORE(rowOut, x);
    }
}
