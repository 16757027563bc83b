// SPDX-License-Identifier: MIT
// Domain bounds carry no tangents.
// expect: "bounds are plain float or double (never dual: domains are never differentiable)"
#include <sphad/ad/dual.hpp>
#include <sphad/domain.hpp>

int main() {
  sphad::Domain<2, sphad::Dual<double, 1>> domain{};
  return domain.periodic[0] ? 1 : 0;
}
