// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/scalar_traits.hpp>
#include <sphad/math/scalar.hpp>

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
    if (value_of(distance) > 0) {
      sum += coefficients[i] * ipow(distance, power);
    }
  }
  return factor * sum;
}

} // namespace sphad::kernels::detail
