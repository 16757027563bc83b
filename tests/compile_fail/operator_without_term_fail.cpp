// SPDX-License-Identifier: MIT
// expect: "sphad::ops: the operator has no pair term"
#include <sphad/pair/concept.hpp>

struct NoTerm {
  using kernel_type = sphad::kernels::Wendland4;
  static constexpr sphad::SupportScheme support = sphad::SupportScheme::Gather;
  static constexpr bool needs_densities = false, needs_values = false, uses_grad_h = false;
};

static_assert(sphad::ops::check_operator<NoTerm>());

int main() {}
