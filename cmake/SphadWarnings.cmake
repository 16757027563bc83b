# SPDX-License-Identifier: MIT
# Warnings as errors for everything sphad builds itself (tests, benchmarks, examples); the
# interface target stays free of them so users keep their own flags.

add_library(sphad_warnings INTERFACE)
target_compile_options(sphad_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Werror>
  $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)
target_compile_definitions(sphad_warnings INTERFACE $<$<CONFIG:Debug>:SPHAD_ENABLE_ASSERTS>)

# sphad_cuda_properties(<target>): what every CUDA executable here shares.
function(sphad_cuda_properties target)
  set_target_properties(${target} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                                             CUDA_EXTENSIONS OFF)
endfunction()
