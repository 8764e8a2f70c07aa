// ptorewrite parse-only headers: cube<->vector FIFO types used by TPUSH/TPOP.
// The front end lowers TPipe transfers itself (parse/fifo.py, parse/fifo_a2a3.py); these
// declarations exist so kernels that use them parse.
#ifndef PTOREWRITE_PTO_FIFO_HPP
#define PTOREWRITE_PTO_FIFO_HPP

#include <pto/common/type.hpp>

namespace pto {

enum TileSplitAxis : uint8_t {
    TILE_NO_SPLIT = 0,
    TILE_UP_DOWN = 1,
    TILE_LEFT_RIGHT = 2,
    TILE_UP_DOWN_ODD = 3,    // rows split unevenly: the first vector core takes the extra row
    TILE_LEFT_RIGHT_ODD = 4, // columns split unevenly: the first vector core takes the extra column
};

enum Direction : uint8_t {
    UNDEFINED = 0,
    DIR_C2V = 1,
    DIR_V2C = 2,
    DIR_BOTH = DIR_C2V | DIR_V2C,
    DIR_V2C_CTRL = 4,
    DIR_C2V_GM = 5,
    DIR_V2C_GM = 6,
    DIR_BOTH_GM = DIR_C2V_GM | DIR_V2C_GM,
};

enum class FIFOType : uint8_t {
    GM_FIFO = 0,
    VEC_FIFO = 1,
    MAT_FIFO = 2,
    CTRL_FIFO = 3,
};

enum class VecCubeRatio : uint8_t {
    V1C1_VEC0 = 0,
    V1C1_VEC1 = 1,
    V2C1_VECS = 2,
};

template <uint32_t SlotSize, uint32_t SlotNum, uint32_t LocalSlotNum>
struct RingFIFO {
    static constexpr uint32_t SLOT_SIZE = SlotSize;
    static constexpr uint32_t SLOT_NUM = SlotNum;
    static constexpr uint32_t LOCAL_SLOT_NUM = LocalSlotNum;
    template <typename... Args>
    AICORE RingFIFO(Args... args)
    {
        ((void)args, ...);
    }
};

// A cross-core pipe. The constructor accepts whatever buffers the real one takes.
template <uint8_t FlagID, uint8_t DirType, uint32_t SlotSize, uint32_t SlotNum, uint32_t LocalSlotNum = 2,
          bool IsNoSplit = false, bool EN_UNIT_FLAG = false>
struct TPipe {
    static constexpr uint8_t DIR_TYPE = DirType & 0x7;
    // One free signal covers this many slots.
    static constexpr uint32_t SyncPeriod = SlotNum <= 2 ? SlotNum : SlotNum / 2;
    // The ring's geometry as the implementation names it (kernels read RingFiFo::SLOT_NUM).
    using RingFiFo = RingFIFO<SlotSize, SlotNum, LocalSlotNum>;
    // a2a3: free signals still pending after `tileCount` pushes (the consumer signals after every
    // SyncPeriod-th tile; the producer waited before each SyncPeriod-th tile from SlotNum on), which
    // the pipe's destructor takes back.
    static constexpr uint32_t countPendingFreeCredits(uint32_t tileCount)
    {
        return tileCount / SyncPeriod -
               (tileCount > SlotNum ? (tileCount - 1) / SyncPeriod - (SlotNum - 1) / SyncPeriod : 0);
    }
    // The two ends as the implementation keeps them: `getTileId()` is an end's tile count so far
    // (a rewrite names a ring's local slot with the consumer's).
    struct Producer {
        AICORE Producer() {}
        AICORE int getTileId() const;
    };
    struct Consumer {
        AICORE Consumer() {}
        AICORE int getTileId() const;
    };
    Producer prod;
    Consumer cons;
    template <typename... Args>
    AICORE TPipe(Args... args)
    {
        ((void)args, ...);
    }
};

// A pipe of several FIFO entries between a producer core and a consumer core: `prod` and
// `cons` are the two ends, each with its own signalling calls; DataFiFo names the depth and
// how often the consumer synchronizes.
template <uint8_t FlagID, FIFOType FiFoType, uint8_t FiFoDepth, uint8_t FiFoSyncT, typename TileDataProd,
          typename TileDataCons, bool EN_UNIT_FLAG = false, uint8_t LocalFiFoDepth = 2,
          VecCubeRatio VCRatio = VecCubeRatio::V2C1_VECS>
struct TMPipe {
    struct DataFiFo {
        static constexpr int fifoDepth = FiFoDepth;
        static constexpr int fifoPeriod = FiFoSyncT;
    };
    struct End {
        AICORE void allocate();
        AICORE void record();
        AICORE void wait();
        AICORE void free();
        AICORE void setTileId(int tileId, int subTileId = 0);
        AICORE void setEntryOffset(uint64_t bytes);
        AICORE void setAllocateStatus(bool on);
        AICORE void setRecordStatus(bool on);
        AICORE void setWaitStatus(bool on);
        AICORE void setFreeStatus(bool on);
        AICORE bool getAllocateStatus() const;
        AICORE bool getRecordStatus() const;
        AICORE bool getWaitStatus() const;
        AICORE bool getFreeStatus() const;
        AICORE int getTileId() const;
        AICORE int getSubTileId() const;
    };
    End prod;
    End cons;
    template <typename... Args>
    AICORE TMPipe(Args... args)
    {
        ((void)args, ...);
    }
};

} // namespace pto

#endif // PTOREWRITE_PTO_FIFO_HPP
