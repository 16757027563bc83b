// SPDX-License-Identifier: MIT
// Built against an installed sphad by the packaging test; exits non-zero if a result is off.
#include <sphad/sphad.hpp>

#include <cmath>
#include <cstdio>

int main() {
  using D1 = sphad::Dual<double, 1>;
  const sphad::Vec<D1, 2> x{D1::variable(3.0, 0), D1(4.0)};
  const D1 r = sphad::safe_norm(x); // 5, d/dx0 = 3/5
  std::printf("sphad %s: |x| = %g, d|x|/dx0 = %g\n", SPHAD_VERSION_STRING, r.value, r.tangent[0]);
  return (r.value == 5.0 && std::abs(r.tangent[0] - 0.6) < 1e-15) ? 0 : 1;
}
