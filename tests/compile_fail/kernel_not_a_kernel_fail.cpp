// SPDX-License-Identifier: MIT
// expect: "sphad::kernels: Kernel is not a smoothing kernel"
#include <sphad/kernels/evaluate.hpp>

struct NotAKernel {};

int main() {
  return int(sphad::kernels::value<NotAKernel>(sphad::Vec<double, 2>{}, 1.0));
}
