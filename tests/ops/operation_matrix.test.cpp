// SPDX-License-Identifier: MIT
// The operation matrix for one dimension and scalar type. CMake compiles this file once per
// pair (SPHAD_MATRIX_DIM, SPHAD_MATRIX_SCALAR), each a part of sphad_test_operation_matrix.
#include "ops/operation_matrix.hpp"

#include "support/part.hpp"

#if !defined(SPHAD_MATRIX_DIM) || !defined(SPHAD_MATRIX_SCALAR)
#error "define SPHAD_MATRIX_DIM (1, 2, 3) and SPHAD_MATRIX_SCALAR (float, double)"
#endif

#define SPHAD_MATRIX_CONFIG                                                                        \
  SPHAD_TEST_STRING(SPHAD_MATRIX_DIM) "D, " SPHAD_TEST_STRING(SPHAD_MATRIX_SCALAR)

TEST_CASE("ops: the operation matrix (" SPHAD_MATRIX_CONFIG ") beats the reference gates",
          "[ops][matrix]") {
  sphad::test::run_operation_matrix<SPHAD_MATRIX_DIM, SPHAD_MATRIX_SCALAR>();
}
