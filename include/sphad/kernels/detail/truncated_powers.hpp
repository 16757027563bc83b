// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_math.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/scalar_traits.hpp>

#include <cmath>

namespace sphad::kernels::detail {

/// The n-th q-derivative (n = 0..3) of a sum of truncated powers
///   k(q) = Σ_i c_i (t_i − q)₊^P,  t_0 = 1,
/// the shape of every B-spline kernel: k⁽ⁿ⁾(q) = (−1)ⁿ P!/(P−n)! Σ_i c_i (t_i − q)₊^(P−n). The
/// t_0 = 1 term is not clamped (q never exceeds 1 where shapes are evaluated, and unclamped it
/// reproduces the reference's values at q = 1, e.g. the cubic's k'''(1) = −6); (x)₊⁰ is the
/// step function, 1 for x > 0.
template <int P, int Derivative, int Terms, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE T truncated_power_sum(const T& q,
                                                     const primal_t<T> (&knots)[Terms],
                                                     const primal_t<T> (&coefficients)[Terms]) {
  using S = primal_t<T>;
  constexpr int power = P - Derivative;
  S factor = (Derivative % 2 == 0) ? S(1) : S(-1);
  for (int m = 0; m < Derivative; ++m) {
    factor *= S(P - m);
  }
  T sum = coefficients[0] * ipow(T(knots[0] - q), power);
  SPHAD_PRAGMA_UNROLL
  for (int i = 1; i < Terms; ++i) {
    const T distance = knots[i] - q;
    if constexpr (power == 0) {
      sum += value_of(distance) > 0 ? coefficients[i] : S(0);
    } else {
      // (|d| + d)/2 is the positive part exactly and without a branch: the knots split the
      // support, so a branch here would mispredict (2.5× slower in measurements).
      using std::abs;
      sum += coefficients[i] * ipow(T((abs(distance) + distance) * S(0.5)), power);
    }
  }
  return factor * sum;
}

} // namespace sphad::kernels::detail
