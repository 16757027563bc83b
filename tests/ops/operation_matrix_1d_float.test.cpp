// SPDX-License-Identifier: MIT
// One dimension and scalar type per translation unit keeps each under a minute to compile.
#include "ops/operation_matrix.hpp"

TEST_CASE("ops: the operation matrix in 1D, float, beats the reference gates", "[ops][matrix]") {
  sphad::test::run_operation_matrix<1, float>();
}
