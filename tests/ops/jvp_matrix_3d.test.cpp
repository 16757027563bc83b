// SPDX-License-Identifier: MIT
// One dimension per translation unit keeps each one's compile time bounded.
#include "ops/jvp_matrix.hpp"

TEST_CASE("jvp: every operator, scheme, support scheme and correction in 3D matches central "
          "differences",
          "[jvp][matrix]") {
  sphad::test::run_jvp_matrix<3>();
}
