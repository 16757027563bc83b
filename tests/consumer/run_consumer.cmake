# SPDX-License-Identifier: MIT
# Installs the sphad build tree into a scratch prefix, then configures, builds and runs the
# consumer project against it with find_package(sphad).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
  set(err "${err}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${SPHAD_BINARY_DIR} --prefix ${prefix})
# Without a build type, find_package(sphad) warns (the operators would compile unoptimized).
set(warning "sphad: CMAKE_BUILD_TYPE is empty")
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build -G "${GENERATOR}"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
if(NOT err MATCHES "${warning}")
  message(FATAL_ERROR "no build-type warning without CMAKE_BUILD_TYPE:\n${err}")
endif()
run(${CMAKE_COMMAND} ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release)
if(err MATCHES "${warning}")
  message(FATAL_ERROR "build-type warning with CMAKE_BUILD_TYPE=Release:\n${err}")
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
