// SPDX-License-Identifier: MIT
// expect: "sphad::Dual: T must be float, double, a Dual or a SIMD pack"
#include <sphad/ad/dual.hpp>

int main() {
  sphad::Dual<int, 1> x;
  return x.value;
}
