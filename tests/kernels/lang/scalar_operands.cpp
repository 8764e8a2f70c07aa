// Scalars a hand-written kernel computes on the way: a function-like macro in a constant, an
// enumerator converted to its number, a scale read from GM by subscript, an optional bias pointer
// passed as nullptr and tested against it, and the sub-block count of the core.
#include <pto/pto-inst.hpp>

using namespace pto;

#define ROUND_TO(n, unit) ((((n) + (unit) - 1) / (unit)) * (unit))
#define SCALED(n) ((n) * SCALE_STEP)
#define SCALE_STEP 2

enum class Half : uint8_t { LOW = 0, HIGH = 1 };

template <typename T, int Valid, Half part>
AICORE inline void ScaleRow(__gm__ T *out, __gm__ T *in, __gm__ T *scale, __gm__ T *bias)
{
    constexpr int Cols = ROUND_TO(Valid, BLOCK_BYTE_SIZE / sizeof(T));
    constexpr int skip = static_cast<int>(part) * SCALED(Cols);
    using Row = Tile<TileType::Vec, T, 1, Cols, BLayout::RowMajor, 1, Valid>;
    using Gm = GlobalTensor<T, Shape<1, 1, 1, 1, Valid>, Stride<1, 1, 1, Valid, 1>>;
    Row x;
    Row b;
    TASSIGN(x, 0x0);
    TASSIGN(b, Cols * sizeof(T));
    Gm src(in + skip);
    Gm dst(out + skip);
    TLOAD(x, src);
    if (bias != nullptr) {
        Gm biasGm(bias);
        TLOAD(b, biasGm);
    }
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(x, x, scale[0]);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    if (get_block_idx() * get_subblockdim() + get_subblockid() == 0) {
        TSTORE(dst, x);
    }
}

__global__ AICORE void scale_rows(__gm__ float *out, __gm__ float *in, __gm__ float *scale)
{
    ScaleRow<float, 20, Half::HIGH>(out, in, scale, nullptr);
}

__global__ AICORE void scale_rows_bias(__gm__ float *out, __gm__ float *in, __gm__ float *scale, __gm__ float *bias)
{
    ScaleRow<float, 20, Half::LOW>(out, in, scale, bias);
}

// Reports where the rows went and that it is done: stores of the scalar unit to arguments no
// instruction uses.
__global__ AICORE void scale_rows_report(__gm__ float *out, __gm__ float *in, __gm__ float *scale,
                                         __gm__ float **where, __gm__ int32_t *done)
{
    ScaleRow<float, 20, Half::HIGH>(out, in, scale, nullptr);
    *where = out;
    done[0] = 1;
}
