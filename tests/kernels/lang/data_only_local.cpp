// A quantisation scalar computed from a float kernel argument's bits: the local only feeds the
// store's and the extract's scalar operands (the extract's window is at row 0, column 16), so
// checking the kernel needs no value for the argument.
#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void quant_store(__gm__ int8_t *out, float scale)
{
#if defined(__DAV_CUBE__)
    using Acc = TileAcc<int32_t, 16, 32>;
    using G = GlobalTensor<int8_t, Shape<1, 1, 1, 16, 32>, Stride<1, 1, 1, 32, 1>>;
    G outGlobal(out);
    using Half = Tile<TileType::Mat, int8_t, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512>;
    Acc acc;
    Half right;
    TASSIGN(acc, 0x0);
    TASSIGN(right, 0x0);
    uint64_t quant = static_cast<uint64_t>(*reinterpret_cast<int32_t *>(&scale));
    quant = quant | (static_cast<uint64_t>(1) << 46);  // signed int8 output
    TSTORE<Acc, G, AtomicType::AtomicNone>(outGlobal, acc, quant);
    TEXTRACT<Half, Acc>(right, acc, quant, 0, 16);
#endif
}
