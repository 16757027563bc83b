// SPDX-License-Identifier: MIT
// The derivative matrix for one dimension and support scheme. CMake compiles this file once per
// pair (SPHAD_MATRIX_DIM, SPHAD_MATRIX_SUPPORT), each a part of sphad_test_derivative_matrix:
// the configurations build in parallel and no translation unit needs gigabytes.
#include "ops/derivative_matrix.hpp"

#include "support/part.hpp"

#if !defined(SPHAD_MATRIX_DIM) || !defined(SPHAD_MATRIX_SUPPORT)
#error "define SPHAD_MATRIX_DIM (1, 2, 3) and SPHAD_MATRIX_SUPPORT (a SupportScheme enumerator)"
#endif

#define SPHAD_MATRIX_CONFIG                                                                        \
  SPHAD_TEST_STRING(SPHAD_MATRIX_DIM) "D, " SPHAD_TEST_STRING(SPHAD_MATRIX_SUPPORT) " support"

TEST_CASE("jvp, record: every operator, scheme and correction (" SPHAD_MATRIX_CONFIG
          "): JVP and VJP match central differences and each other",
          "[jvp][vjp][matrix]") {
  sphad::test::run_derivative_matrix<SPHAD_MATRIX_DIM,
                                     sphad::SupportScheme::SPHAD_MATRIX_SUPPORT>();
}
