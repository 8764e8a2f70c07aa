// Forced in with -include by tests: the tile height env_flags.cpp is built with.
#define FORCED_ROWS 8
