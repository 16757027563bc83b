// SPDX-License-Identifier: MIT
// The derivative matrix for one dimension, support scheme and kernel. CMake compiles this file
// once per (SPHAD_MATRIX_DIM, SPHAD_MATRIX_SUPPORT[, SPHAD_MATRIX_KERNEL]), each a part of
// sphad_test_derivative_matrix (the kernel defaults to Wendland4):
// the configurations build in parallel and no translation unit needs gigabytes.
#include "ops/derivative_matrix.hpp"

#include "support/part.hpp"

#if !defined(SPHAD_MATRIX_DIM) || !defined(SPHAD_MATRIX_SUPPORT)
#error "define SPHAD_MATRIX_DIM (1, 2, 3) and SPHAD_MATRIX_SUPPORT (a SupportScheme enumerator)"
#endif

// SPHAD_MATRIX_USER_EXTENSIONS: the worked extensions of docs/extending.md, types the library
// has never heard of: the user-defined kernel of examples/user_kernel instead of the library's,
// and the user-defined operator of examples/user_operator beside the library's.
#ifdef SPHAD_MATRIX_USER_EXTENSIONS
#include "user_kernel/cosine_kernel.hpp"
#include "user_operator/xsph.hpp"
#define SPHAD_MATRIX_KERNEL_TYPE user::CosineKernel
#define SPHAD_MATRIX_KERNEL_NAME "user::CosineKernel, user::XSPH"
#define SPHAD_MATRIX_EXTRA                                                                         \
  sphad::test::OpList<user::XSPH<user::CosineKernel, sphad::SupportScheme::SPHAD_MATRIX_SUPPORT>>
#else
#ifndef SPHAD_MATRIX_KERNEL
#define SPHAD_MATRIX_KERNEL Wendland4
#endif
#define SPHAD_MATRIX_KERNEL_TYPE sphad::kernels::SPHAD_MATRIX_KERNEL
#define SPHAD_MATRIX_KERNEL_NAME SPHAD_TEST_STRING(SPHAD_MATRIX_KERNEL)
#define SPHAD_MATRIX_EXTRA sphad::test::OpList<>
#endif

#define SPHAD_MATRIX_CONFIG                                                                        \
  SPHAD_TEST_STRING(SPHAD_MATRIX_DIM)                                                              \
  "D, " SPHAD_TEST_STRING(SPHAD_MATRIX_SUPPORT) " support, " SPHAD_MATRIX_KERNEL_NAME

TEST_CASE("jvp, record: every operator, scheme and correction (" SPHAD_MATRIX_CONFIG
          "): JVP and VJP match central differences and each other",
          "[jvp][vjp][matrix]") {
  sphad::test::run_derivative_matrix<SPHAD_MATRIX_DIM, sphad::SupportScheme::SPHAD_MATRIX_SUPPORT,
                                     SPHAD_MATRIX_KERNEL_TYPE, SPHAD_MATRIX_EXTRA>();
}
