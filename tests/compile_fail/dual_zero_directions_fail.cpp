// SPDX-License-Identifier: MIT
// expect: "sphad::Dual: N (the number of tangent directions) must be at least 1"
#include <sphad/ad/dual.hpp>

int main() {
  sphad::Dual<double, 0> x;
  return int(x.value);
}
