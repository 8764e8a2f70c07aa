// The scalar unit reads a member of a struct in GM that a TSTORE of the same kernel writes (past
// the header): the read is a PIPE_S load of the member's bytes, which the race check orders.
#include <pto/pto-inst.hpp>

using namespace pto;

struct Header {
    int32_t count;
    int32_t pad[15];
};

using Row = Tile<TileType::Vec, float, 1, 16, BLayout::RowMajor>;
using RowGm = GlobalTensor<float, Shape<1, 1, 1, 1, 16>, Stride<1, 1, 1, 16, 1>>;

__global__ AICORE void store_then_count(__gm__ float *in, __gm__ uint8_t *block)
{
    __gm__ Header *h = reinterpret_cast<__gm__ Header *>(block);
    int32_t n = h->count;
    Row row;
    TASSIGN(row, 0x0);
    RowGm src(in + n);
    RowGm dst(reinterpret_cast<__gm__ float *>(block + sizeof(Header)));
    TLOAD(row, src);
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(dst, row);
}
