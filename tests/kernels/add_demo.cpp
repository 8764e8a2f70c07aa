// Elementwise add in the shape of pto-isa's demos/auto_mode/baseline/add: the whole file is
// guarded for the a2a3 vector core, the entry takes GM_ADDR buffers plus a run-time length,
// each core takes one row of the input by get_block_idx(), the GlobalTensor views are moved
// along the row with TASSIGN(view, pointer) and a ping-pong variable picks the buffer of
// every tile array (AUTO mode: no tile TASSIGN, no flags).
#if __CCE_AICORE__ == 220 && defined(__DAV_C220_VEC__)
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr uint32_t BLOCK_DIM = 20;
constexpr uint32_t ADD_ROWS = 20;
constexpr uint32_t ADD_COLS = 2048;
constexpr uint32_t SLICES = 2;
constexpr uint32_t BUFS = 2;

template <typename T, uint32_t tileRows, uint32_t tileCols>
AICORE void runTAdd(__gm__ T *z, __gm__ T *x, __gm__ T *y, uint32_t totalLength)
{
    set_mask_norm();
    set_vector_mask(-1, -1);

    constexpr uint32_t rowsPerCore = tileRows / BLOCK_DIM;
    constexpr uint32_t sliceCols = tileCols / (SLICES * BUFS);
    const uint32_t coreLength = totalLength / BLOCK_DIM;

    using GmShape = Shape<1, 1, 1, rowsPerCore, sliceCols>;
    using GmStride = Stride<1, 1, 1, tileCols, 1>;
    using GmData = GlobalTensor<T, GmShape, GmStride>;
    using TileData = Tile<TileType::Vec, T, rowsPerCore, sliceCols, BLayout::RowMajor, rowsPerCore, sliceCols>;

    TileData xTiles[BUFS];
    TileData yTiles[BUFS];
    TileData zTiles[BUFS];

    GmData xGlobal(x);
    GmData yGlobal(y);
    GmData zGlobal(z);

    int pingpong = 0;
    for (uint32_t i = 0; i < SLICES * BUFS; i++) {
        const uint32_t offset = get_block_idx() * coreLength + i * sliceCols;
        TASSIGN(xGlobal, x + offset);
        TASSIGN(yGlobal, y + offset);
        TASSIGN(zGlobal, z + offset);

        TLOAD(xTiles[pingpong], xGlobal);
        TLOAD(yTiles[pingpong], yGlobal);
        TADD(zTiles[pingpong], xTiles[pingpong], yTiles[pingpong]);
        TSTORE(zGlobal, zTiles[pingpong]);
        pingpong = 1 - pingpong;
    }
}

extern "C" __global__ AICORE void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength)
{
    runTAdd<half, ADD_ROWS, ADD_COLS>((__gm__ half *)z, (__gm__ half *)x, (__gm__ half *)y, totalLength);
}
#endif
