# PtoRewrite.cmake: run `ptorewrite auto2manual` as a pre-build step.
#
#   list(APPEND CMAKE_MODULE_PATH /path/to/ptorewrite/cmake)
#   include(PtoRewrite)
#   ptorewrite_auto2manual(MANUAL_SRC kernels/add.cpp
#                          ARCH a2a3
#                          INCLUDE_DIRS ${CMAKE_CURRENT_SOURCE_DIR}/kernels
#                          DEFINES TILE_ROWS=32
#                          OPTIONS --checked-tassign)
#   add_library(add_kernel OBJECT ${MANUAL_SRC})   # or hand it to the device compiler
#
# The manual-mode kernel is written to ${CMAKE_CURRENT_BINARY_DIR}/ptorewrite/<name>.manual.cpp
# (or OUTPUT) and regenerated when the AUTO source changes. A kernel ptorewrite rejects fails
# the build with the tool's file:line:col diagnostics, and no output file is left behind.

if(NOT PTOREWRITE_EXECUTABLE)
  find_program(PTOREWRITE_EXECUTABLE ptorewrite)
endif()

function(ptorewrite_auto2manual out_var source)
  cmake_parse_arguments(ARG "" "ARCH;CORE;ENTRY;OUTPUT;PTO_ISA_ROOT" "INCLUDE_DIRS;DEFINES;OPTIONS;DEPENDS" ${ARGN})
  if(NOT PTOREWRITE_EXECUTABLE)
    message(FATAL_ERROR "ptorewrite not found: pip install ptorewrite, or set PTOREWRITE_EXECUTABLE")
  endif()
  get_filename_component(src "${source}" ABSOLUTE)
  get_filename_component(name "${source}" NAME_WE)
  if(NOT ARG_OUTPUT)
    set(ARG_OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/ptorewrite/${name}.manual.cpp")
  endif()
  if(NOT ARG_ARCH)
    set(ARG_ARCH a2a3)
  endif()
  set(args auto2manual "${src}" --arch ${ARG_ARCH} -o "${ARG_OUTPUT}")
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    list(APPEND args -I "${dir}")
  endforeach()
  foreach(def IN LISTS ARG_DEFINES)
    list(APPEND args -D "${def}")
  endforeach()
  if(ARG_CORE)
    list(APPEND args --core ${ARG_CORE})
  endif()
  if(ARG_ENTRY)
    list(APPEND args --entry ${ARG_ENTRY})
  endif()
  if(ARG_PTO_ISA_ROOT)
    list(APPEND args --pto-isa-root "${ARG_PTO_ISA_ROOT}")
  endif()
  get_filename_component(out_dir "${ARG_OUTPUT}" DIRECTORY)
  add_custom_command(
    OUTPUT "${ARG_OUTPUT}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${out_dir}"
    COMMAND ${PTOREWRITE_EXECUTABLE} ${args} ${ARG_OPTIONS}
    DEPENDS "${src}" ${ARG_DEPENDS}
    COMMENT "ptorewrite auto2manual ${source}"
    VERBATIM)
  set(${out_var} "${ARG_OUTPUT}" PARENT_SCOPE)
endfunction()
