# SPDX-License-Identifier: MIT
# Warnings as errors for everything sphad builds itself (tests, benchmarks, examples); the
# interface target stays free of them so users keep their own flags. Clang's -Wmissing-braces
# is off: a matrix is written row-major as a flat list (Mat<double, 2, 2>{1, 2, 3, 4}, brace
# elision, docs/math.md), which Clang 14's -Wall flags; the library's own headers use full braces.

add_library(sphad_warnings INTERFACE)
target_compile_options(sphad_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Werror>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:Clang>>:-Wno-missing-braces>
  $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)
target_compile_definitions(sphad_warnings INTERFACE $<$<CONFIG:Debug>:SPHAD_ENABLE_ASSERTS>)

# sphad_allow_spelled_out_calls(): in the calling directory (and below), the verbs' deprecated
# overloads that take the queries, references, domain, adjacency and options one by one are no
# error: the tests and benchmarks call them on purpose (they forward to the calls over
# `ops::pairs`, which the tests compare them with bit for bit). The examples call no deprecated
# overload.
macro(sphad_allow_spelled_out_calls)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-deprecated-declarations>
                      $<$<COMPILE_LANGUAGE:CUDA>:-Wno-deprecated-declarations>
                      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wno-deprecated-declarations>)
endmacro()

# sphad_cuda_properties(<target>): what every CUDA executable here shares.
function(sphad_cuda_properties target)
  set_target_properties(${target} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                                             CUDA_EXTENSIONS OFF)
endfunction()
