// SPDX-License-Identifier: MIT
// One dimension per translation unit keeps each one's compile time bounded.
#include "ops/derivative_matrix.hpp"

TEST_CASE("jvp, record: every operator, scheme, support scheme and correction in 2D: JVP "
          "and VJP match central differences and each other",
          "[jvp][vjp][matrix]") {
  sphad::test::run_derivative_matrix<2>();
}
