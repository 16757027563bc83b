# SPDX-License-Identifier: MIT
# cmake -DCXX_COMPILER=... -DINCLUDE_DIR=... -DSOURCE=... -P check_compile_fail.cmake
file(STRINGS ${SOURCE} expect_line REGEX "^// expect: \".*\"$")
if(NOT expect_line)
  message(FATAL_ERROR "${SOURCE} has no `// expect: \"...\"` line")
endif()
string(REGEX REPLACE "^// expect: \"(.*)\"$" "\\1" expected "${expect_line}")
execute_process(COMMAND ${CXX_COMPILER} -std=c++17 -fsyntax-only -I${INCLUDE_DIR} ${SOURCE}
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must not")
endif()
string(FIND "${out}${err}" "${expected}" position)
if(position EQUAL -1)
  message(FATAL_ERROR "${SOURCE} failed to compile without the expected text\n"
                      "expected: ${expected}\ncompiler said:\n${out}${err}")
endif()
message(STATUS "${SOURCE} fails to compile as expected: ${expected}")
