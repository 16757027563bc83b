# SPDX-License-Identifier: MIT
# cmake -DPROGRAM=... -DEXPECTED=<regex> -P expect_failure.cmake
# Passes when PROGRAM exits unsuccessfully (an abort included) and its output matches EXPECTED.
execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(result EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} succeeded, but it must fail")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECTED}")
  message(FATAL_ERROR "${PROGRAM} failed (${result}) without the expected output\n"
                      "expected: ${EXPECTED}\noutput:\n${out}${err}")
endif()
message(STATUS "${PROGRAM} failed as expected (${result})")
