// Shapes shared by the kernels of this folder: one 32 x 128 float block per step.
#pragma once
#include <pto/pto-inst.hpp>
using namespace pto;
constexpr int ROWS = 32;
constexpr int COLS = 128;
constexpr int BLOCK = ROWS * COLS;
constexpr int STEPS = 6;
using BlockT = Tile<TileType::Vec, float, ROWS, COLS, BLayout::RowMajor, ROWS, COLS>;
using BlockGm = GlobalTensor<float, Shape<1, 1, 1, ROWS, COLS>, Stride<1, 1, 1, COLS, 1>>;
