# PtoRewriteConfig.cmake: the CMake package installed with ptorewrite.
#
#   find_package(PtoRewrite REQUIRED)     # with PtoRewrite_DIR set to `ptorewrite --cmake-dir`
#   ptorewrite_auto2manual(OUT_VAR MANUAL SOURCES kernels/add.cpp ARCH a2a3)
#
# Sets PTOREWRITE_EXECUTABLE (the `ptorewrite` command), PTOREWRITE_INCLUDE_DIRS (ptorewrite's
# bundled parse-only PTO headers and toolkit stand-ins: enough for a syntax-only compile of a
# kernel on the host, not for building it) and defines ptorewrite_auto2manual() (see
# PtoRewrite.cmake).

include("${CMAKE_CURRENT_LIST_DIR}/PtoRewrite.cmake")

if(NOT PTOREWRITE_EXECUTABLE)
  set(PtoRewrite_FOUND FALSE)
  set(PtoRewrite_NOT_FOUND_MESSAGE
      "the ptorewrite command was not found: install ptorewrite (pip install ptorewrite) into an environment on PATH, or set PTOREWRITE_EXECUTABLE")
endif()
