// SPDX-License-Identifier: MIT
// expect: "sphad::pinv: only 1x1, 2x2 and 3x3 matrices"
#include <sphad/math/pinv.hpp>

int main() {
  const auto p = sphad::pinv(sphad::Mat<double, 4, 4>::identity());
  return int(p(0, 0));
}
