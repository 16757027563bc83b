// SPDX-License-Identifier: MIT
// Every operator and gradient scheme with CRK, renormalization and grad-h at once, on the ranks
// of MPI_COMM_WORLD against the same code on one rank (MPI_COMM_SELF, the whole set owned): the
// values, the JVPs (every input carrying a tangent) and the VJPs (every input a Variable, the
// reference side gathered through recorded halos) agree per particle to 1e-12 relative, open and
// periodic, over slabs and recursive bisection; the dot-product test holds across ranks.
// CMake compiles this file per (SPHAD_DIST_DIM, SPHAD_DIST_SUPPORT).
#include "dist/dist_cases.hpp"
#include "support/part.hpp"

#if !defined(SPHAD_DIST_DIM) || !defined(SPHAD_DIST_SUPPORT)
#error "define SPHAD_DIST_DIM (2, 3) and SPHAD_DIST_SUPPORT (a SupportScheme enumerator)"
#endif

TEST_CASE(
    "dist: every operator and scheme with every correction on N ranks equals one rank "
    "(" SPHAD_TEST_STRING(SPHAD_DIST_DIM) "D, " SPHAD_TEST_STRING(SPHAD_DIST_SUPPORT) " support)",
    "[dist][matrix]") {
  sphad::test::run_distributed_matrix<SPHAD_DIST_DIM, sphad::SupportScheme::SPHAD_DIST_SUPPORT>();
}
