// Sizes of row_scale.cpp, in a header of their own: a build that rewrites row_scale.cpp must
// rewrite it again when this header changes.
#pragma once

constexpr int ROW_SCALE_ROWS = 16;
constexpr int ROW_SCALE_COLS = 64;
constexpr int ROW_SCALE_TILES = 4;
