// ptorewrite parse-only headers: the asynchronous L2 prefetch (TPREFETCH_ASYNC). The SDMA engine
// fetches a GM tensor into the L2 cache in the background, driven through a small UB scratch tile
// and a GM workspace. The front end models each call by what it touches on the core
// (ptorewrite/parse/sdma.py).
// Included from the end of pto/comm/comm_types.hpp, once the async handles it uses are complete
// (whichever of the two headers a kernel includes first).
#if defined(PTOREWRITE_COMM_TYPES_COMPLETE) && !defined(PTOREWRITE_PREFETCH_ASYNC_HPP)
#define PTOREWRITE_PREFETCH_ASYNC_HPP

namespace pto {

struct PrefetchAsyncContext {
    using ScratchTile = Tile<TileType::Vec, uint8_t, 1, 32>;  // one 32-byte UB block
    ScratchTile scratchTile;
    AICORE PrefetchAsyncContext() = default;
    AICORE explicit PrefetchAsyncContext(__gm__ uint8_t *workspace);
    AICORE PrefetchAsyncContext(__gm__ uint8_t *workspace, comm::AsyncSession *shared);
    AICORE comm::AsyncSession &GetSession();
};

// Starts the prefetch of `src`; the event it returns is waited on with ctx.GetSession().
template <typename GlobalData, typename... WaitEvents>
AICORE comm::AsyncEvent TPREFETCH_ASYNC(GlobalData &src, PrefetchAsyncContext &ctx, WaitEvents &...events);

namespace comm {
// Sets up a session on the SDMA engine from a UB scratch tile and the GM workspace.
// The trailing arguments (sync id, engine configuration, channel group) have defaults.
template <typename ScratchTile, typename... Config>
AICORE bool BuildAsyncSession(ScratchTile &scratch, __gm__ uint8_t *workspace, AsyncSession &session,
                              Config... config);
} // namespace comm

} // namespace pto

#endif // PTOREWRITE_COMM_TYPES_COMPLETE && !PTOREWRITE_PREFETCH_ASYNC_HPP
