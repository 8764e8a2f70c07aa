// A kernel template parameterized by a spec struct of its own namespace: the spec's member aliases
// name its static members (`padded`), and the kernel's parameter types reach two members deep
// (`Spec::Global::RawDType`). clang names the instantiation's argument with its namespace.
#include <pto/pto-inst.hpp>

using namespace pto;

namespace spec_tests {

template <typename T, int Rows, int Cols>
struct AddSpec {
    static constexpr int rows = Rows;
    static constexpr int padded = (Cols + 15) / 16 * 16;
    using TileT = Tile<TileType::Vec, T, Rows, padded, BLayout::RowMajor, Rows, Cols>;
    using Global = GlobalTensor<T, Shape<1, 1, 1, Rows, Cols>, Stride<1, 1, 1, Cols, 1>>;
};

template <typename Spec>
__global__ AICORE void add_spec(__gm__ typename Spec::Global::RawDType *out,
                                __gm__ typename Spec::Global::RawDType *in)
{
    typename Spec::TileT t;
    TASSIGN(t, 0x0);
    typename Spec::Global src(in);
    typename Spec::Global dst(out);
    TLOAD(t, src);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADDS(t, t, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, t);
}

template __global__ AICORE void add_spec<AddSpec<float, 4, 20>>(__gm__ float *, __gm__ float *);

} // namespace spec_tests
