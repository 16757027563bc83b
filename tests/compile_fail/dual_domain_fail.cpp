// SPDX-License-Identifier: MIT
// Decision A2: domain bounds carry no tangents.
// expect: "sphad::Domain: bounds are plain float or double (never dual: decision A2)"
#include <sphad/ad/dual.hpp>
#include <sphad/domain.hpp>

int main() {
  sphad::Domain<2, sphad::Dual<double, 1>> domain{};
  return domain.periodic[0] ? 1 : 0;
}
