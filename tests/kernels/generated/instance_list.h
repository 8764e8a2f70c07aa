// Stands for a header a build step generates: the cases to instantiate, as an X-macro.
#define FOR_EACH_SCALE_CASE(CASE) \
    CASE(16, 64)                  \
    CASE(32, 64)
