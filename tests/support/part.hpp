// SPDX-License-Identifier: MIT
// For a test source that CMake compiles once per configuration (sphad_add_test_part in
// tests/CMakeLists.txt), each configuration given as compile definitions.
#pragma once

/// The spelling of a macro's value, as a string literal (for test names).
#define SPHAD_TEST_STRING(x) SPHAD_DETAIL_TEST_STRING(x)
#define SPHAD_DETAIL_TEST_STRING(x) #x
