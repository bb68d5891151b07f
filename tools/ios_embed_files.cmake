# SPDX-License-Identifier: Apache-2.0
# ios_embed_files(): embed data files into a target as std::string_view byte arrays.
#
#   ios_embed_files(TARGET <target> NAMESPACE <ns> FILES <file>... [COMMENT <text>]
#                   [OUTPUT <name.cpp>])
#
# Generates <name.cpp> (default embedded_<target>.cpp) in the current binary directory with
# tools/embed_files.cmake at build time and adds it to <target>'s sources. Every file f
# (relative paths are taken from the current source directory) becomes
#   extern const std::string_view k_<basename>  in namespace <ns>,
# where <basename> is f's file name with every character outside [A-Za-z0-9] turned into
# '_' (k_h100_sxm_json for devices/h100_sxm.json), and
#   extern const std::span<const std::pair<std::string_view, std::string_view>> kFiles
# lists every (file name, contents) in the order given. The generated file is rebuilt when a
# listed file or the generator changes.
include_guard(GLOBAL)

function(ios_embed_files)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;NAMESPACE;COMMENT;OUTPUT" "FILES")
  if(NOT arg_TARGET OR NOT arg_NAMESPACE OR NOT arg_FILES)
    message(FATAL_ERROR "ios_embed_files: TARGET, NAMESPACE and FILES are required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ios_embed_files: unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_OUTPUT)
    set(arg_OUTPUT embedded_${arg_TARGET}.cpp)
  endif()
  if(NOT arg_COMMENT)
    set(arg_COMMENT "Embedding files into ${arg_TARGET}")
  endif()
  set(generator ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_files.cmake)
  set(files "")
  set(symbols "")
  foreach(f IN LISTS arg_FILES)
    cmake_path(ABSOLUTE_PATH f BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} OUTPUT_VARIABLE path)
    cmake_path(GET f FILENAME name)
    string(REGEX REPLACE "[^A-Za-z0-9]" "_" sym "k_${name}")
    list(APPEND files ${path})
    list(APPEND symbols ${sym})
  endforeach()
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/${arg_OUTPUT})
  add_custom_command(OUTPUT ${generated}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${generated} -DNAMESPACE=${arg_NAMESPACE}
            "-DFILES=${files}" "-DSYMBOLS=${symbols}" -P ${generator}
    DEPENDS ${files} ${generator}
    COMMENT "${arg_COMMENT}"
    VERBATIM)
  target_sources(${arg_TARGET} PRIVATE ${generated})
endfunction()
