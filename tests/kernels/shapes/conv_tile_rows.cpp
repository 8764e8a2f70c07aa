// A ConvTile whose H is known only at run time: a double-buffered L1 feature map (NC1HWC0, 1 x 2
// x H x 16 x 16 halves), each slot constructed again for every block with that block's rows, the
// second buffer placed right after the first one's rows (plus kGap rows). BufferSize, in elements
// as pto-isa counts it, is the room for the tallest block (8 rows); the last block has 5. A load
// touches the rows its tile holds, not the room: the buffers do not overlap with kGap = 0, not
// even in the last block, where the second one moves up. With kGap = -1 they share a row. The
// second slot may be constructed shorter (kShorter rows fewer): the first keeps its own rows.
#include <pto/pto-inst.hpp>

using namespace pto;

using Fmap = ConvTile<TileType::Mat, half, 2 * 8 * 16 * 16, Layout::NC1HWC0, ConvTileShape<1, 2, -1, 16, 16>>;
using Rows = Shape<1, 2, -1, 16, 16>;
using Gm = GlobalTensor<half, Rows, Stride<4096, 2048, 256, 16, 1>, Layout::NC1HWC0>;

template <int kGap, int kShorter>
__global__ AICORE void conv_tile_rows(__gm__ half *in)
{
    Fmap fmap[2];
    for (int block = 0; block < 3; ++block) {
        int64_t rows = block == 2 ? 5 : 8;
        for (int i = 0; i < 2; ++i) {
            fmap[i] = Fmap(i == 0 ? rows : rows - kShorter);
        }
        TASSIGN(fmap[0], 0x0);
        TASSIGN(fmap[1], 0x0 + 2 * (rows + kGap) * 16 * 16 * sizeof(half));
        Gm first(in + block * 4096, Rows(rows));
        Gm second(in + block * 4096, Rows(rows - kShorter));
        TLOAD(fmap[0], first);
        TLOAD(fmap[1], second);
        pipe_barrier(PIPE_MTE2);
    }
}

template __global__ AICORE void conv_tile_rows<0, 0>(__gm__ half *);
template __global__ AICORE void conv_tile_rows<-1, 0>(__gm__ half *);
template __global__ AICORE void conv_tile_rows<-1, 3>(__gm__ half *);
