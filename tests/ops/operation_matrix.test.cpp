// SPDX-License-Identifier: MIT
// The operation matrix for one dimension, scalar type and kernel. CMake compiles this file once
// per (SPHAD_MATRIX_DIM, SPHAD_MATRIX_SCALAR[, SPHAD_MATRIX_KERNEL]), each a part of
// sphad_test_operation_matrix (the kernel defaults to Wendland2).
#include "ops/operation_matrix.hpp"

#include "support/part.hpp"

#if !defined(SPHAD_MATRIX_DIM) || !defined(SPHAD_MATRIX_SCALAR)
#error "define SPHAD_MATRIX_DIM (1, 2, 3) and SPHAD_MATRIX_SCALAR (float, double)"
#endif

#ifndef SPHAD_MATRIX_KERNEL
#define SPHAD_MATRIX_KERNEL Wendland2
#endif

#define SPHAD_MATRIX_CONFIG                                                                        \
  SPHAD_TEST_STRING(SPHAD_MATRIX_DIM)                                                              \
  "D, " SPHAD_TEST_STRING(SPHAD_MATRIX_SCALAR) ", " SPHAD_TEST_STRING(SPHAD_MATRIX_KERNEL)

TEST_CASE("ops: the operation matrix (" SPHAD_MATRIX_CONFIG ") beats the reference gates",
          "[ops][matrix]") {
  sphad::test::run_operation_matrix<SPHAD_MATRIX_DIM, SPHAD_MATRIX_SCALAR,
                                    sphad::kernels::SPHAD_MATRIX_KERNEL>();
}
