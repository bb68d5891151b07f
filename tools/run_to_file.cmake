# SPDX-License-Identifier: Apache-2.0
# cmake -DOUT=FILE -DPROGRAM=EXE [-DARGS=a;b] [-DENV=K=V;...] -P run_to_file.cmake
# Runs PROGRAM ARGS with standard output into OUT (written whole or not at all): the build's
# way to render ios-sched's man page and completions from the binary just built.
cmake_minimum_required(VERSION 3.25)
set(env_prefix)
if(ENV)
  set(env_prefix ${CMAKE_COMMAND} -E env ${ENV})
endif()
execute_process(COMMAND ${env_prefix} ${PROGRAM} ${ARGS} OUTPUT_FILE ${OUT}.tmp
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} failed (${rc}): ${err}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
