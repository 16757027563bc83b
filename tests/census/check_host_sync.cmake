# SPDX-License-Identifier: MIT
# cmake -DINCLUDE_DIR=... -P check_host_sync.cmake
# The no-host-sync census: every line of include/ that synchronizes with the
# device or reads device memory back — cudaStreamSynchronize, cudaDeviceSynchronize, blocking
# cudaMemcpy, cudaMalloc, device-to-host copies, sphad's own to_host/reduce_max, the Thrust
# algorithms that return a value to the host (called: `thrust::reduce(`, not an iterator type
# such as `thrust::counting_iterator`) — must carry, on
# that line or the one above, a `// host sync: <why>` comment. Anything else fails the test.
file(GLOB_RECURSE headers ${INCLUDE_DIR}/*.hpp)
set(pattern "cudaStreamSynchronize|cudaDeviceSynchronize|cudaMemcpy\\(|cudaMalloc\\(|cudaMallocManaged|DeviceToHost|to_host\\(|reduce_max\\(|thrust::(reduce|count|count_if|find|find_if|find_if_not|max_element|min_element|minmax_element)[ ]*\\(")
set(failures "")
set(allowed 0)
foreach(header IN LISTS headers)
  # Lines as a CMake list: escape what lists treat specially before splitting on newlines.
  file(READ ${header} text)
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REPLACE "[" "<open>" text "${text}")
  string(REPLACE "]" "<close>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(previous "")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    string(REGEX MATCH "^[ ]*///" is_doc "${line}")
    if(line MATCHES "${pattern}" AND NOT is_doc)
      if(line MATCHES "// host sync: ." OR previous MATCHES "// host sync: .")
        math(EXPR allowed "${allowed} + 1")
      else()
        string(APPEND failures "\n  ${header}:${number}: ${line}")
      endif()
    endif()
    set(previous "${line}")
  endforeach()
endforeach()
if(failures)
  message(FATAL_ERROR "synchronizing calls without a `// host sync: <why>` comment:${failures}")
endif()
message(STATUS "host-sync census: ${allowed} documented synchronization points, no others")
