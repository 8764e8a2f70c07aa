# PtoRewrite.cmake: `ptorewrite auto2manual` as a build step.
#
#   find_package(PtoRewrite REQUIRED)   # PtoRewrite_DIR = `ptorewrite --cmake-dir`
#   # or: include(<output of ptorewrite --cmake-dir>/PtoRewrite.cmake)
#
#   ptorewrite_auto2manual(OUT_VAR <var> SOURCES <auto.cpp>...
#                          [ARCH a2a3|a5] [CORE vec|cube]
#                          [INCLUDES <dir>...] [DEFINES <NAME[=VALUE]>...]
#                          [OPTIONS <ptorewrite option>...]
#                          [ENTRY <kernel>] [PTO_ISA_ROOT <dir>] [OUTPUT_DIR <dir>] [DEPENDS <file>...])
#   add_library(kernels OBJECT ${<var>})   # or hand ${<var>} to ascendc_library() or any target
#
# Each AUTO source is rewritten into <OUTPUT_DIR>/<path>/<name>.manual<ext> (OUTPUT_DIR defaults
# to ${CMAKE_CURRENT_BINARY_DIR}/ptorewrite; <path> is the source's folder relative to
# ${CMAKE_CURRENT_SOURCE_DIR}); <var> receives those paths. The rewrite runs again when the
# source, any header its parse read (a depfile: `ptorewrite auto2manual --depfile`), the
# ptorewrite command or the function's arguments change, and only then. The manual source is
# replaced only when its text changes, so a header edit that changes nothing in the rewrite
# recompiles nothing. A kernel ptorewrite rejects fails the build with its file:line:col
# diagnostics. Generated sources get the AUTO source's folder as an include directory, for its
# quoted includes (a directory-scoped source property: use the outputs in this directory).
#
# How: one command per source writes the dependency file <out>.d (its stamp: rewritten on every
# run) and then the manual source if it changed; a second, empty step names the manual source
# as its output and depends on the stamp (it regenerates the source if it was deleted). Works
# with the Makefile and Ninja generators, CMake 3.20 or newer.

include_guard(GLOBAL)
cmake_minimum_required(VERSION 3.20)

set(_PTOREWRITE_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")
get_filename_component(_PTOREWRITE_PACKAGE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

if(NOT PTOREWRITE_EXECUTABLE)
  # The console script of the environment this package is installed in
  # (<prefix>/lib/pythonX.Y/site-packages/ptorewrite -> <prefix>/bin), else the one on PATH.
  find_program(PTOREWRITE_EXECUTABLE ptorewrite
               HINTS "${_PTOREWRITE_PACKAGE_DIR}/../../../../bin" "${_PTOREWRITE_PACKAGE_DIR}/../../Scripts")
endif()

if(EXISTS "${_PTOREWRITE_PACKAGE_DIR}/parse/include")
  set(PTOREWRITE_INCLUDE_DIRS "${_PTOREWRITE_PACKAGE_DIR}/parse/include" "${_PTOREWRITE_PACKAGE_DIR}/parse/toolkit")
endif()

# "[==[text]==]": `text` as one CMake bracket argument, whatever it holds.
function(_ptorewrite_bracket out_var text)
  set(eq "")
  while(text MATCHES "\\]${eq}\\]" OR text MATCHES "\\]${eq}$")
    string(APPEND eq "=")
  endwhile()
  set(${out_var} "[${eq}[${text}]${eq}]" PARENT_SCOPE)
endfunction()

function(ptorewrite_auto2manual)
  cmake_parse_arguments(PARSE_ARGV 0 ARG ""
                        "OUT_VAR;ARCH;CORE;ENTRY;PTO_ISA_ROOT;OUTPUT_DIR"
                        "SOURCES;INCLUDES;DEFINES;OPTIONS;DEPENDS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ptorewrite_auto2manual: unexpected arguments: ${ARG_UNPARSED_ARGUMENTS} "
                        "(the form is OUT_VAR <var> SOURCES <file>... [ARCH a2a3|a5] [CORE vec|cube] ...)")
  endif()
  if(NOT ARG_OUT_VAR)
    message(FATAL_ERROR "ptorewrite_auto2manual: OUT_VAR <var> is required")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "ptorewrite_auto2manual: SOURCES <file>... is required")
  endif()
  if(NOT ARG_ARCH)
    set(ARG_ARCH a2a3)
  elseif(NOT ARG_ARCH MATCHES "^(a2a3|a5)$")
    message(FATAL_ERROR "ptorewrite_auto2manual: ARCH is a2a3 or a5, not '${ARG_ARCH}'")
  endif()
  if(ARG_CORE AND NOT ARG_CORE MATCHES "^(vec|cube)$")
    message(FATAL_ERROR "ptorewrite_auto2manual: CORE is vec or cube, not '${ARG_CORE}'")
  endif()
  if(NOT PTOREWRITE_EXECUTABLE)
    message(FATAL_ERROR "ptorewrite_auto2manual: the ptorewrite command was not found; install ptorewrite "
                        "(pip install ptorewrite) or set PTOREWRITE_EXECUTABLE")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/ptorewrite")
  endif()
  get_filename_component(out_root "${ARG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")

  set(flags --arch ${ARG_ARCH})
  if(ARG_CORE)
    list(APPEND flags --core ${ARG_CORE})
  endif()
  foreach(dir IN LISTS ARG_INCLUDES)
    get_filename_component(dir "${dir}" ABSOLUTE)
    list(APPEND flags -I "${dir}")
  endforeach()
  foreach(def IN LISTS ARG_DEFINES)
    list(APPEND flags -D "${def}")
  endforeach()
  if(ARG_ENTRY)
    list(APPEND flags --entry "${ARG_ENTRY}")
  endif()
  if(ARG_PTO_ISA_ROOT)
    get_filename_component(root "${ARG_PTO_ISA_ROOT}" ABSOLUTE)
    list(APPEND flags --pto-isa-root "${root}")
  endif()
  set(extra_depends)
  foreach(dep IN LISTS ARG_DEPENDS)
    get_filename_component(dep "${dep}" ABSOLUTE)
    list(APPEND extra_depends "${dep}")
  endforeach()

  set(outputs)
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(src "${source}" ABSOLUTE)
    get_filename_component(src_dir "${src}" DIRECTORY)
    get_filename_component(stem "${src}" NAME_WLE)
    get_filename_component(ext "${src}" LAST_EXT)
    file(RELATIVE_PATH rel_dir "${CMAKE_CURRENT_SOURCE_DIR}" "${src_dir}")
    if(rel_dir MATCHES "^\\.\\.(/|$)" OR IS_ABSOLUTE "${rel_dir}")
      set(rel_dir "")  # outside the source tree: straight under OUTPUT_DIR
    endif()
    if(rel_dir)
      set(out "${out_root}/${rel_dir}/${stem}.manual${ext}")
    else()
      set(out "${out_root}/${stem}.manual${ext}")
    endif()
    get_property(taken GLOBAL PROPERTY PTOREWRITE_OUTPUTS)
    if(out IN_LIST taken)
      message(FATAL_ERROR "ptorewrite_auto2manual: two sources would be rewritten into ${out}; "
                          "give one of them its own OUTPUT_DIR")
    endif()
    set_property(GLOBAL APPEND PROPERTY PTOREWRITE_OUTPUTS "${out}")
    get_filename_component(out_dir "${out}" DIRECTORY)
    set(stamp "${out}.d")

    # The whole command in a small script: rerun by the rewrite step, and by the second step when
    # the output went missing. The script changes (and the rewrite reruns) when the arguments do.
    set(command "${PTOREWRITE_EXECUTABLE}" auto2manual "${src}" -o "${out}" --depfile "${stamp}"
                --depfile-target "${stamp}" ${flags} ${ARG_OPTIONS})
    set(quoted "")
    foreach(arg IN LISTS command)
      _ptorewrite_bracket(q "${arg}")
      string(APPEND quoted "\n    ${q}")
    endforeach()
    _ptorewrite_bracket(q_out "${out}")
    _ptorewrite_bracket(q_src "${source}")
    _ptorewrite_bracket(q_dir "${out_dir}")
    string(MD5 out_hash "${out}")
    string(SUBSTRING "${out_hash}" 0 8 out_hash)
    set(script "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/ptorewrite/${stem}-${out_hash}.cmake")
    set(content "# Written by ptorewrite_auto2manual(): rewrites ${source}.
if(PTOREWRITE_IF_MISSING AND EXISTS ${q_out})
  return()
endif()
file(MAKE_DIRECTORY ${q_dir})
execute_process(COMMAND${quoted}
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR \"ptorewrite auto2manual \" ${q_src} \" failed (exit status \${status})\")
endif()
")
    set(old "")
    if(EXISTS "${script}")
      file(READ "${script}" old)
    endif()
    if(NOT old STREQUAL content)  # rewritten only when it changes: the rewrite step depends on it
      file(WRITE "${script}" "${content}")
    endif()
    add_custom_command(
      OUTPUT "${stamp}"
      COMMAND "${CMAKE_COMMAND}" -P "${script}"
      DEPENDS "${src}" "${script}" "${PTOREWRITE_EXECUTABLE}" ${extra_depends}
      DEPFILE "${stamp}"
      COMMENT "ptorewrite auto2manual ${source}"
      VERBATIM)
    add_custom_command(
      OUTPUT "${out}"
      COMMAND "${CMAKE_COMMAND}" -DPTOREWRITE_IF_MISSING=ON -P "${script}"
      DEPENDS "${stamp}"
      COMMENT ""
      VERBATIM)
    set_source_files_properties("${out}" PROPERTIES GENERATED TRUE INCLUDE_DIRECTORIES "${src_dir}")
    list(APPEND outputs "${out}")
  endforeach()
  set(${ARG_OUT_VAR} ${outputs} PARENT_SCOPE)
endfunction()
