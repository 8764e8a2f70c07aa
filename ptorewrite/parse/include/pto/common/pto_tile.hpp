// ptorewrite parse-only headers: Tile, GlobalTensor and their shape/stride descriptors.
//
// Template parameter order, defaults and the names of static members follow pto-isa, so
// kernel code that reads e.g. `TileT::Rows` or `GT::staticShape[3]` type-checks. Storage is
// omitted: a tile here is an empty handle.
#ifndef PTOREWRITE_PTO_TILE_HPP
#define PTOREWRITE_PTO_TILE_HPP

#include <pto/common/constants.hpp>
#include <pto/common/type.hpp>

namespace pto {

// A shape/stride/valid-size entry of -1 is filled in at run time.
constexpr int DYNAMIC = -1;

// --------------------------------------------------------------------------------------
// 5-D GM shape and stride. The constructors take the run-time values of the DYNAMIC
// entries only, in order (or all five).
// --------------------------------------------------------------------------------------
template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC,
          int64_t N5 = DYNAMIC>
struct Shape {
    static constexpr int64_t staticShape[GlobalTensorDim::TOTAL_DIM] = {N1, N2, N3, N4, N5};
    int64_t shape[GlobalTensorDim::TOTAL_DIM] = {1, 1, 1, 1, 1};

    AICORE Shape() {}
    AICORE Shape(int64_t n) { (void)n; }
    AICORE Shape(int64_t n1, int64_t n2) { (void)n1, (void)n2; }
    AICORE Shape(int64_t n1, int64_t n2, int64_t n3) { (void)n1, (void)n2, (void)n3; }
    AICORE Shape(int64_t n1, int64_t n2, int64_t n3, int64_t n4) { (void)n1, (void)n2, (void)n3, (void)n4; }
    AICORE Shape(int64_t n1, int64_t n2, int64_t n3, int64_t n4, int64_t n5)
    {
        (void)n1, (void)n2, (void)n3, (void)n4, (void)n5;
    }
};

template <int64_t SN1 = DYNAMIC, int64_t SN2 = DYNAMIC, int64_t SN3 = DYNAMIC, int64_t SN4 = DYNAMIC,
          int64_t SN5 = DYNAMIC>
struct Stride {
    static constexpr int64_t staticStride[GlobalTensorDim::TOTAL_DIM] = {SN1, SN2, SN3, SN4, SN5};
    int64_t stride[GlobalTensorDim::TOTAL_DIM] = {1, 1, 1, 1, 1};

    AICORE Stride() {}
    AICORE Stride(int64_t n) { (void)n; }
    AICORE Stride(int64_t n1, int64_t n2) { (void)n1, (void)n2; }
    AICORE Stride(int64_t n1, int64_t n2, int64_t n3) { (void)n1, (void)n2, (void)n3; }
    AICORE Stride(int64_t n1, int64_t n2, int64_t n3, int64_t n4) { (void)n1, (void)n2, (void)n3, (void)n4; }
    AICORE Stride(int64_t n1, int64_t n2, int64_t n3, int64_t n4, int64_t n5)
    {
        (void)n1, (void)n2, (void)n3, (void)n4, (void)n5;
    }
};

// --------------------------------------------------------------------------------------
// GlobalTensor: a typed view of GM. Element type, Shape, Stride, Layout.
// --------------------------------------------------------------------------------------
template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
struct GlobalTensor {
    using Shape = Shape_;
    using Stride = Stride_;
    using RawDType = detail::remove_cv_t<Element_>;
    using DType = __gm__ RawDType;
    static constexpr Layout layout = Layout_;

    static constexpr int64_t staticShape[GlobalTensorDim::TOTAL_DIM] = {
        Shape::staticShape[0], Shape::staticShape[1], Shape::staticShape[2], Shape::staticShape[3],
        Shape::staticShape[4]};
    static constexpr int64_t staticStride[GlobalTensorDim::TOTAL_DIM] = {
        Stride::staticStride[0], Stride::staticStride[1], Stride::staticStride[2], Stride::staticStride[3],
        Stride::staticStride[4]};

    AICORE GlobalTensor() : data_(nullptr) {}
    AICORE GlobalTensor(DType *data, const Shape &shape = Shape(), const Stride &stride = Stride())
        : data_(data), shape_(shape), stride_(stride)
    {}

    AICORE int64_t GetShape(const int dim) { return shape_.shape[dim]; }
    AICORE int64_t GetStride(const int dim) { return stride_.stride[dim]; }

    template <int dim>
    AICORE static constexpr int64_t GetShape()
    {
        return staticShape[dim];
    }
    template <int dim>
    AICORE static constexpr int64_t GetStride()
    {
        return staticStride[dim];
    }

    // SetShape<d0, d1, ...>(v0, v1, ...) / SetStride<...>(...) overwrite DYNAMIC entries.
    template <int... dims, typename... Vals>
    AICORE void SetShape(Vals... vals)
    {
        static_assert(sizeof...(dims) == sizeof...(Vals), "one value per dimension");
        ((void)vals, ...);
    }
    template <int... dims, typename... Vals>
    AICORE void SetStride(Vals... vals)
    {
        static_assert(sizeof...(dims) == sizeof...(Vals), "one value per dimension");
        ((void)vals, ...);
    }

    AICORE DType *data() { return data_; }

private:
    DType *data_;
    Shape shape_;
    Stride stride_;
};

// --------------------------------------------------------------------------------------
// TileShape2D / BaseShape2D: the Shape and Stride of a 2-D window (rows x cols) of a GM
// matrix, for the ND (row-major), DN (column-major) and NZ (fractal) layouts.
// --------------------------------------------------------------------------------------
namespace detail {
constexpr int64_t dynOr(int64_t v, int64_t value) { return v == DYNAMIC ? DYNAMIC : value; }
constexpr int64_t dynOr2(int64_t a, int64_t b, int64_t value) { return (a == DYNAMIC || b == DYNAMIC) ? DYNAMIC : value; }
template <typename T>
constexpr int64_t c0Elems() { return C0_SIZE_BYTE / static_cast<int64_t>(sizeof(T)); }
} // namespace detail

template <typename T, int64_t rows = DYNAMIC, int64_t cols = DYNAMIC, Layout Layout_ = Layout::ND>
struct TileShape2D;

template <typename T, int64_t rows, int64_t cols>
struct TileShape2D<T, rows, cols, Layout::ND> : Shape<1, 1, 1, rows, cols> {
    using Parent = Shape<1, 1, 1, rows, cols>;
    using Parent::Parent;
    AICORE TileShape2D() : Parent() {}
    AICORE TileShape2D(int64_t dynamicRows, int64_t dynamicCols) : Parent(1, 1, 1, dynamicRows, dynamicCols) {}
};

template <typename T, int64_t rows, int64_t cols>
struct TileShape2D<T, rows, cols, Layout::DN> : Shape<1, 1, 1, rows, cols> {
    using Parent = Shape<1, 1, 1, rows, cols>;
    using Parent::Parent;
    AICORE TileShape2D() : Parent() {}
    AICORE TileShape2D(int64_t dynamicRows, int64_t dynamicCols) : Parent(1, 1, 1, dynamicRows, dynamicCols) {}
};

// NZ: [1, cols/C0, rows/16, 16, C0] where C0 = 32 bytes of elements.
template <typename T, int64_t rows, int64_t cols>
struct TileShape2D<T, rows, cols, Layout::NZ>
    : Shape<1, detail::dynOr(cols, cols / detail::c0Elems<T>()), detail::dynOr(rows, rows / FRACTAL_NZ_ROW),
            FRACTAL_NZ_ROW, detail::c0Elems<T>()> {
    static constexpr int C0Size = static_cast<int>(detail::c0Elems<T>());
    using Parent = Shape<1, detail::dynOr(cols, cols / detail::c0Elems<T>()),
                         detail::dynOr(rows, rows / FRACTAL_NZ_ROW), FRACTAL_NZ_ROW, detail::c0Elems<T>()>;
    using Parent::Parent;
    AICORE TileShape2D() : Parent() {}
    AICORE TileShape2D(int64_t dynamicRows, int64_t dynamicCols)
        : Parent(1, dynamicCols / C0Size, dynamicRows / FRACTAL_NZ_ROW, FRACTAL_NZ_ROW, C0Size)
    {}
};

template <typename T, int64_t rows = DYNAMIC, int64_t cols = DYNAMIC, Layout Layout_ = Layout::ND>
struct BaseShape2D;

// ND: a rows x cols row-major matrix; the outer three strides step over whole matrices.
template <typename T, int64_t rows, int64_t cols>
struct BaseShape2D<T, rows, cols, Layout::ND>
    : Stride<detail::dynOr2(rows, cols, rows * cols), detail::dynOr2(rows, cols, rows * cols),
             detail::dynOr2(rows, cols, rows * cols), cols, 1> {
    using Parent = Stride<detail::dynOr2(rows, cols, rows * cols), detail::dynOr2(rows, cols, rows * cols),
                          detail::dynOr2(rows, cols, rows * cols), cols, 1>;
    using Parent::Parent;
    AICORE BaseShape2D() : Parent() {}
    AICORE BaseShape2D(int64_t dynamicRows, int64_t dynamicCols)
        : Parent(dynamicRows * dynamicCols, dynamicRows * dynamicCols, dynamicRows * dynamicCols, dynamicCols, 1)
    {}
};

// DN: column-major, so the row step is 1 and the column step is `rows`.
template <typename T, int64_t rows, int64_t cols>
struct BaseShape2D<T, rows, cols, Layout::DN>
    : Stride<detail::dynOr2(rows, cols, rows * cols), detail::dynOr2(rows, cols, rows * cols),
             detail::dynOr2(rows, cols, rows * cols), 1, rows> {
    using Parent = Stride<detail::dynOr2(rows, cols, rows * cols), detail::dynOr2(rows, cols, rows * cols),
                          detail::dynOr2(rows, cols, rows * cols), 1, rows>;
    using Parent::Parent;
    AICORE BaseShape2D() : Parent() {}
    AICORE BaseShape2D(int64_t dynamicRows, int64_t dynamicCols)
        : Parent(dynamicRows * dynamicCols, dynamicRows * dynamicCols, dynamicRows * dynamicCols, 1, dynamicRows)
    {}
};

// NZ: strides of the [1, cols/C0, rows/16, 16, C0] fractal shape above.
template <typename T, int64_t rows, int64_t cols>
struct BaseShape2D<T, rows, cols, Layout::NZ>
    : Stride<detail::dynOr2(rows, cols, rows * cols), detail::dynOr(rows, rows * detail::c0Elems<T>()),
             FRACTAL_NZ_ROW * detail::c0Elems<T>(), detail::c0Elems<T>(), 1> {
    static constexpr int C0Size = static_cast<int>(detail::c0Elems<T>());
    static constexpr int FractalNZSize = FRACTAL_NZ_ROW * C0Size;
    using Parent = Stride<detail::dynOr2(rows, cols, rows * cols), detail::dynOr(rows, rows * detail::c0Elems<T>()),
                          FRACTAL_NZ_ROW * detail::c0Elems<T>(), detail::c0Elems<T>(), 1>;
    using Parent::Parent;
    AICORE BaseShape2D() : Parent() {}
    AICORE BaseShape2D(int64_t dynamicRows, int64_t dynamicCols)
        : Parent(dynamicRows * dynamicCols, dynamicRows * C0Size, FractalNZSize, C0Size, 1)
    {}
};

// MX scale matrices (a5): the scales of a rows x cols operand come in pairs (MX_COL_LEN = 2
// along K). The A-side layouts: ZZ is [1, rows/16, cols/2, 16, 2] (16 x 2 blocks of 32 bytes),
// ND keeps rows and splits the columns into pairs, DN is its transpose. The B side: NN is
// [1, cols/16, rows/2, 16, 2], ND and DN split the rows into pairs. A dynamic extent stays
// dynamic in every entry it feeds.
#define PTOREWRITE_MX_SHAPE2D(LAYOUT, S1, S2, S3, S4, D1, D2, D3, D4, T1, T2, T3, E1, E2, E3)            \
    template <typename T, int64_t rows, int64_t cols>                                                    \
    struct TileShape2D<T, rows, cols, Layout::LAYOUT> : Shape<1, S1, S2, S3, S4> {                       \
        static constexpr int C0Size = MX_COL_LEN;                                                        \
        using Parent = Shape<1, S1, S2, S3, S4>;                                                         \
        using Parent::Parent;                                                                            \
        AICORE TileShape2D() : Parent() {}                                                               \
        AICORE TileShape2D(int64_t dynamicRows, int64_t dynamicCols) : Parent(1, D1, D2, D3, D4) {}     \
    };                                                                                                   \
    template <typename T, int64_t rows, int64_t cols>                                                    \
    struct BaseShape2D<T, rows, cols, Layout::LAYOUT>                                                    \
        : Stride<detail::dynOr2(rows, cols, rows * cols), T1, T2, T3, 1> {                              \
        using Parent = Stride<detail::dynOr2(rows, cols, rows * cols), T1, T2, T3, 1>;                  \
        using Parent::Parent;                                                                            \
        AICORE BaseShape2D() : Parent() {}                                                               \
        AICORE BaseShape2D(int64_t dynamicRows, int64_t dynamicCols)                                     \
            : Parent(dynamicRows * dynamicCols, E1, E2, E3, 1)                                           \
        {}                                                                                               \
    }

PTOREWRITE_MX_SHAPE2D(MX_A_ZZ, detail::dynOr(rows, rows / MX_ROW_LEN), detail::dynOr(cols, cols / MX_COL_LEN),
                      MX_ROW_LEN, MX_COL_LEN, dynamicRows / MX_ROW_LEN, dynamicCols / MX_COL_LEN, MX_ROW_LEN,
                      MX_COL_LEN, detail::dynOr(cols, cols * MX_ROW_LEN), MX_BLOCK_SIZE, MX_COL_LEN,
                      dynamicCols * MX_ROW_LEN, MX_BLOCK_SIZE, MX_COL_LEN);
PTOREWRITE_MX_SHAPE2D(MX_A_ND, 1, rows, detail::dynOr(cols, cols / MX_COL_LEN), MX_COL_LEN, 1,
                      dynamicRows, dynamicCols / MX_COL_LEN, MX_COL_LEN, detail::dynOr2(rows, cols, rows * cols),
                      cols, MX_COL_LEN, dynamicRows * dynamicCols, dynamicCols, MX_COL_LEN);
PTOREWRITE_MX_SHAPE2D(MX_A_DN, 1, detail::dynOr(cols, cols / MX_COL_LEN), rows, MX_COL_LEN, 1,
                      dynamicCols / MX_COL_LEN, dynamicRows, MX_COL_LEN, detail::dynOr2(rows, cols, rows * cols),
                      detail::dynOr(rows, rows * MX_COL_LEN), MX_COL_LEN, dynamicRows * dynamicCols,
                      dynamicRows * MX_COL_LEN, MX_COL_LEN);
PTOREWRITE_MX_SHAPE2D(MX_B_NN, detail::dynOr(cols, cols / MX_ROW_LEN), detail::dynOr(rows, rows / MX_COL_LEN),
                      MX_ROW_LEN, MX_COL_LEN, dynamicCols / MX_ROW_LEN, dynamicRows / MX_COL_LEN, MX_ROW_LEN,
                      MX_COL_LEN, detail::dynOr(rows, rows * MX_ROW_LEN), MX_BLOCK_SIZE, MX_COL_LEN,
                      dynamicRows * MX_ROW_LEN, MX_BLOCK_SIZE, MX_COL_LEN);
PTOREWRITE_MX_SHAPE2D(MX_B_ND, 1, detail::dynOr(rows, rows / MX_COL_LEN), cols, MX_COL_LEN, 1,
                      dynamicRows / MX_COL_LEN, dynamicCols, MX_COL_LEN, detail::dynOr2(rows, cols, rows * cols),
                      detail::dynOr(cols, cols * MX_COL_LEN), MX_COL_LEN, dynamicRows * dynamicCols,
                      dynamicCols * MX_COL_LEN, MX_COL_LEN);
PTOREWRITE_MX_SHAPE2D(MX_B_DN, 1, cols, detail::dynOr(rows, rows / MX_COL_LEN), MX_COL_LEN, 1,
                      dynamicCols, dynamicRows / MX_COL_LEN, MX_COL_LEN, detail::dynOr2(rows, cols, rows * cols),
                      rows, MX_COL_LEN, dynamicRows * dynamicCols, dynamicRows, MX_COL_LEN);
#undef PTOREWRITE_MX_SHAPE2D

// --------------------------------------------------------------------------------------
// Tile
// --------------------------------------------------------------------------------------
namespace TileConfig {
static constexpr int alignedSize = 32;
static constexpr int fixedRowSize = 16;
static constexpr int fixedColSize = 16;
static constexpr int fixedMxRowSize = 16;
static constexpr int fixedMxColSize = 2;
static constexpr int fractalABSize = 512;
static constexpr int fractalCSize = 1024;
static constexpr int fractalMxSize = 32;
} // namespace TileConfig

// Tile<Loc, DType, Rows, Cols, BFractal, ValidRow, ValidCol, SFractal, SFractalSize, PadVal, Compact>
// Rows x Cols is the capacity (and byte size); ValidRow/ValidCol may be DYNAMIC, in which
// case they are given to the constructor.
template <TileType Loc_, typename Element_, const int Rows_, const int Cols_,
          const BLayout BFractal_ = BLayout::RowMajor, const int RowValid_ = Rows_, const int ColValid_ = Cols_,
          const SLayout SFractal_ = SLayout::NoneBox, const int SFractalSize_ = TileConfig::fractalABSize,
          const PadValue PadVal_ = PadValue::Null, const CompactMode Compact_ = CompactMode::Null>
struct Tile {
public:
    using DType = Element_;
    // The element storage handle; in real pto-isa an address-space qualified pointer.
    using TileDType = DType *;

    static constexpr TileType Loc = Loc_;
    static constexpr int Rows = Rows_;
    static constexpr int Cols = Cols_;
    static constexpr int RowStride = BFractal_ == BLayout::RowMajor ? Cols : 1;
    static constexpr int ColStride = BFractal_ == BLayout::RowMajor ? 1 : Rows;
    static constexpr int ValidRow = RowValid_;
    static constexpr int ValidCol = ColValid_;
    static constexpr BLayout BFractal = BFractal_;
    static constexpr SLayout SFractal = SFractal_;
    static constexpr int Numel = Rows * Cols;
    static constexpr bool isRowMajor = BFractal_ == BLayout::RowMajor;
    static constexpr int SFractalSize = SFractalSize_;
    static constexpr PadValue PadVal = PadVal_;
    static constexpr CompactMode Compact = Compact_;

    static constexpr bool isBoxedLayout = (SFractal != SLayout::NoneBox);
    static constexpr bool isInnerRowMajor = (SFractal == SLayout::RowMajor);
    static constexpr bool isInnerColMajor = (SFractal == SLayout::ColMajor);

    // Fractal box geometry: 16x16 for the accumulator, 16x2 for MX scales, otherwise one
    // 32-byte block per box row (row-major box) or per box column (column-major box).
    static constexpr int getInnerRow()
    {
        if constexpr (SFractalSize_ == TileConfig::fractalCSize) {
            return TileConfig::fixedRowSize;
        } else if constexpr (SFractalSize_ == TileConfig::fractalMxSize) {
            return TileConfig::fixedMxRowSize;
        } else if constexpr (SFractal_ == SLayout::NoneBox) {
            return 1;
        } else {
            return SFractal_ == SLayout::RowMajor ? TileConfig::fixedRowSize
                                                  : TileConfig::alignedSize / static_cast<int>(sizeof(DType));
        }
    }
    static constexpr int getInnerCol()
    {
        if constexpr (SFractalSize_ == TileConfig::fractalCSize) {
            return TileConfig::fixedColSize;
        } else if constexpr (SFractalSize_ == TileConfig::fractalMxSize) {
            return TileConfig::fixedMxColSize;
        } else if constexpr (SFractal_ == SLayout::NoneBox) {
            return 1;
        } else {
            return SFractal_ == SLayout::RowMajor ? TileConfig::alignedSize / static_cast<int>(sizeof(DType))
                                                  : TileConfig::fixedColSize;
        }
    }
    static constexpr int InnerRows = getInnerRow();
    static constexpr int InnerCols = getInnerCol();
    static constexpr int InnerNumel = InnerRows * InnerCols;

    // Static valid shape.
    AICORE Tile() {}

    // Both valid dimensions dynamic.
    template <int RowMask = ValidRow, int ColMask = ValidCol>
    AICORE Tile(detail::enable_if_t<RowMask == DYNAMIC && ColMask == DYNAMIC, unsigned> validRow,
                detail::enable_if_t<RowMask == DYNAMIC && ColMask == DYNAMIC, unsigned> validCol)
        : RowMaskInternal(validRow), ColMaskInternal(validCol)
    {}

    // Only the valid row count dynamic.
    template <int RowMask = ValidRow, int ColMask = ValidCol>
    AICORE Tile(detail::enable_if_t<(RowMask == DYNAMIC) && (ColMask > 0), unsigned> validRow)
        : RowMaskInternal(validRow)
    {}

    // Only the valid column count dynamic.
    template <int RowMask = ValidRow, int ColMask = ValidCol>
    AICORE Tile(detail::enable_if_t<(RowMask > 0) && (ColMask == DYNAMIC), unsigned> validCol)
        : ColMaskInternal(validCol)
    {}

    // Scalar element access from the scalar unit (Vec tiles only in pto-isa).
    AICORE void SetValue(const uint32_t offset, const DType val) { (void)offset, (void)val; }
    AICORE DType GetValue(const uint32_t offset) { return (void)offset, DType(); }

    AICORE TileDType &data() { return data_; }
    AICORE const TileDType &data() const { return data_; }

    AICORE unsigned GetValidRow() const { return ValidRow == DYNAMIC ? RowMaskInternal : unsigned(ValidRow); }
    AICORE unsigned GetValidCol() const { return ValidCol == DYNAMIC ? ColMaskInternal : unsigned(ValidCol); }
    AICORE void SetValidRow(unsigned rowMask) { RowMaskInternal = rowMask; }
    AICORE void SetValidCol(unsigned colMask) { ColMaskInternal = colMask; }
    AICORE void SetValidShape(unsigned rowMask, unsigned colMask)
    {
        RowMaskInternal = rowMask;
        ColMaskInternal = colMask;
    }

    AICORE bool GetKAligned() const { return isKAligned_; }
    AICORE void SetKAligned(bool isKAligned) { isKAligned_ = isKAligned; }
    AICORE void SetMadTF32Mode(RoundMode tf32TransMode = RoundMode::CAST_ROUND) { (void)tf32TransMode; }
    AICORE void ResetMadMode() {}

    unsigned RowMaskInternal = 0;
    unsigned ColMaskInternal = 0;

private:
    bool isKAligned_ = false;
    TileDType data_ = nullptr;
};

// Cube operand aliases. The L0A (Left) block layout differs between the architectures.
#if defined(PTO_NPU_ARCH_A5)
#define PTOREWRITE_LEFT_BLAYOUT BLayout::ColMajor
#else
#define PTOREWRITE_LEFT_BLAYOUT BLayout::RowMajor
#endif

template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileLeft = Tile<TileType::Left, Element_, Rows_, Cols_, PTOREWRITE_LEFT_BLAYOUT, RowValid_, ColValid_,
                      SLayout::RowMajor, TileConfig::fractalABSize>;
template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileLeftCompact = Tile<TileType::Left, Element_, Rows_, Cols_, PTOREWRITE_LEFT_BLAYOUT, RowValid_, ColValid_,
                             SLayout::RowMajor, TileConfig::fractalABSize, PadValue::Null, CompactMode::Normal>;

template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileRight = Tile<TileType::Right, Element_, Rows_, Cols_, BLayout::RowMajor, RowValid_, ColValid_,
                       SLayout::ColMajor, TileConfig::fractalABSize>;
template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileRightCompact = Tile<TileType::Right, Element_, Rows_, Cols_, BLayout::RowMajor, RowValid_, ColValid_,
                              SLayout::ColMajor, TileConfig::fractalABSize, PadValue::Null, CompactMode::Normal>;

template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileLeftScale = Tile<TileType::ScaleLeft, Element_, Rows_, Cols_, BLayout::RowMajor, RowValid_, ColValid_,
                           SLayout::RowMajor, TileConfig::fractalMxSize>;
template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileLeftScaleCompact =
    Tile<TileType::ScaleLeft, Element_, Rows_, Cols_, BLayout::RowMajor, RowValid_, ColValid_, SLayout::RowMajor,
         TileConfig::fractalMxSize, PadValue::Null, CompactMode::Normal>;

template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileRightScale = Tile<TileType::ScaleRight, Element_, Rows_, Cols_, BLayout::ColMajor, RowValid_, ColValid_,
                            SLayout::ColMajor, TileConfig::fractalMxSize>;
template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileRightScaleCompact =
    Tile<TileType::ScaleRight, Element_, Rows_, Cols_, BLayout::ColMajor, RowValid_, ColValid_, SLayout::ColMajor,
         TileConfig::fractalMxSize, PadValue::Null, CompactMode::Normal>;

template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileAcc = Tile<TileType::Acc, Element_, Rows_, Cols_, BLayout::ColMajor, RowValid_, ColValid_,
                     SLayout::RowMajor, TileConfig::fractalCSize>;
template <typename Element_, const int Rows_, const int Cols_, const int RowValid_ = Rows_, const int ColValid_ = Cols_>
using TileAccCompact = Tile<TileType::Acc, Element_, Rows_, Cols_, BLayout::ColMajor, RowValid_, ColValid_,
                            SLayout::RowMajor, TileConfig::fractalCSize, PadValue::Null, CompactMode::Normal>;

// --------------------------------------------------------------------------------------
// ConvTile: an N-D (up to 6-D) L1 tile used by the img2col path.
// --------------------------------------------------------------------------------------
template <int... Shapes>
struct ConvTileShape {
    static constexpr int totalDimCount = sizeof...(Shapes);
    static constexpr int64_t staticShape[6] = {Shapes...};
    int64_t shape[6] = {1, 1, 1, 1, 1, 1};
    template <typename... Ints>
    AICORE ConvTileShape(Ints... dynamicVals)
    {
        ((void)dynamicVals, ...);
    }
};

template <TileType Loc_, typename Element_, const int BufferSize_, Layout Layout_, typename Shape_>
struct ConvTile {
    using DType = Element_;
    using ShapeType = Shape_;
    using TileDType = DType *;
    static constexpr TileType Loc = Loc_;
    static constexpr int bufferSize = BufferSize_;
    static constexpr Layout layout = Layout_;
    static constexpr int totalDimCount = ShapeType::totalDimCount;
    int64_t shape[6] = {1, 1, 1, 1, 1, 1};

    AICORE ConvTile() {}
    template <typename... Ints>
    AICORE explicit ConvTile(Ints... dynamicVals)
    {
        ((void)dynamicVals, ...);
    }
    AICORE int64_t GetShape(int dim) const { return shape[dim]; }
    AICORE TileDType &data() { return data_; }

    // Feature-map / filter configuration consumed by SETFMATRIX and TIMG2COL.
    AICORE void SetFmapH(uint16_t v) { (void)v; }
    AICORE void SetFmapW(uint16_t v) { (void)v; }
    AICORE void SetPadList(uint8_t index, uint8_t value) { (void)index, (void)value; }
    AICORE void SetPadListArray(const uint8_t values[4]) { (void)values; }
    AICORE void SetFilterH(uint16_t v) { (void)v; }
    AICORE void SetFilterW(uint16_t v) { (void)v; }
    AICORE void SetDilationH(uint8_t v) { (void)v; }
    AICORE void SetDilationW(uint8_t v) { (void)v; }
    AICORE void SetStrideH(uint8_t v) { (void)v; }
    AICORE void SetStrideW(uint8_t v) { (void)v; }
    AICORE void SetPadValue(DType v) { (void)v; }
    AICORE void SetChannelSize(uint16_t v) { (void)v; }
    AICORE void SetRepeatStride(uint16_t v) { (void)v; }
    AICORE void SetRepeatTime(uint8_t v) { (void)v; }
    AICORE void SetRepeatMode(uint8_t v) { (void)v; }
    AICORE void SetTranspose(bool v) { (void)v; }
    // a5 img2col output placement.
    AICORE void SetDstStride(uint16_t v) { (void)v; }
    AICORE void SetDstMposition(uint16_t v) { (void)v; }
    // Readers of the same configuration (parse only: they report nothing set).
    AICORE uint16_t GetFmapH() const { return 0; }
    AICORE uint16_t GetFmapW() const { return 0; }
    AICORE uint16_t GetFilterH() const { return 0; }
    AICORE uint16_t GetFilterW() const { return 0; }
    AICORE uint16_t GetChannelSize() const { return 0; }
    AICORE uint16_t GetDstStride() const { return 0; }

private:
    TileDType data_ = nullptr;
};

// --------------------------------------------------------------------------------------
// Type predicates used to constrain instruction overloads.
// --------------------------------------------------------------------------------------
template <typename T>
struct is_global : detail::false_type {};
template <typename E, typename S, typename St, Layout L>
struct is_global<GlobalTensor<E, S, St, L>> : detail::true_type {};

template <typename T>
struct is_tile : detail::false_type {};
template <TileType Loc_, typename Element_, int Rows_, int Cols_, BLayout BFractal_, int RowValid_, int ColValid_,
          SLayout SFractal_, int SFractalSize_, PadValue PadVal_, CompactMode Compact_>
struct is_tile<Tile<Loc_, Element_, Rows_, Cols_, BFractal_, RowValid_, ColValid_, SFractal_, SFractalSize_, PadVal_,
                    Compact_>> : detail::true_type {};

template <typename T>
struct is_conv_tile : detail::false_type {};
template <TileType Loc_, typename Element_, int BufferSize_, Layout Layout_, typename Shape_>
struct is_conv_tile<ConvTile<Loc_, Element_, BufferSize_, Layout_, Shape_>> : detail::true_type {};

template <typename T>
constexpr bool is_tile_data_v = is_tile<detail::remove_cv_t<T>>::value;
template <typename T>
constexpr bool is_global_data_v = is_global<detail::remove_cv_t<T>>::value;
template <typename T>
constexpr bool is_conv_tile_v = is_conv_tile<detail::remove_cv_t<T>>::value;

} // namespace pto

#endif // PTOREWRITE_PTO_TILE_HPP
