// SPDX-License-Identifier: MIT
#pragma once

#include <cmath>

namespace sphad::test {

/// Tolerances per scalar type, named for what they bound.
template <class T>
struct tol;

template <>
struct tol<double> {
  static constexpr double analytic = 1e-14;   ///< dual tangent vs closed-form derivative
  static constexpr double finite_diff = 1e-7; ///< dual tangent vs central differences
  static constexpr double algebra = 1e-12;    ///< identities (inverse, pinv, Moore–Penrose)
};

template <>
struct tol<float> {
  static constexpr float analytic = 1e-6f;
  static constexpr float finite_diff = 1e-3f;
  static constexpr float algebra = 1e-5f;
};

/// |a − b| ≤ rel · max(|a|, |b|, floor): relative, with an absolute floor for values near 0.
template <class T>
bool close(T a, T b, T rel, T floor = T(1)) {
  using std::abs;
  const T scale = std::fmax(std::fmax(abs(a), abs(b)), floor);
  return abs(a - b) <= rel * scale;
}

/// Central difference (f(x + h) − f(x − h)) / 2h with a step scaled to x.
template <class F>
double central_difference(const F& f, double x, double relative_step = 1e-6) {
  const double h = relative_step * std::fmax(1.0, std::fabs(x));
  return (f(x + h) - f(x - h)) / (2 * h);
}

} // namespace sphad::test
