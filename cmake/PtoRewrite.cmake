# For a source checkout: the CMake module lives in the package (ptorewrite/cmake), where an
# installed ptorewrite has it too (`ptorewrite --cmake-dir` prints that folder).
#
#   list(APPEND CMAKE_MODULE_PATH /path/to/ptorewrite/cmake)
#   include(PtoRewrite)
include("${CMAKE_CURRENT_LIST_DIR}/../ptorewrite/cmake/PtoRewrite.cmake")
