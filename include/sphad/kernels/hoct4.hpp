// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/kernels/detail/truncated_powers.hpp>
#include <sphad/kernels/kernel_id.hpp>
#include <sphad/scalar_traits.hpp>

/// \file
/// \brief HOCT4, the "higher-order core triangle" kernel of Read, Hayfield & Agertz (2010)
/// with n = 4, β = ½, γ = ¾ (a comparison kernel of Dehnen & Aly 2012). Its shape is
///   k(q) = P q + Q                                      for q ≤ α,
///   k(q) = (1 − q)⁴ + A (¾ − q)₊⁴ + B (½ − q)₊⁴          for α < q ≤ 1,
/// with A = 16/5 and B = −94/5 exact, and α, P, Q the published 12-digit values; k is C² at α
/// (k''(α) = 0) and monotonically decreasing. The linear core gives the gradient a constant
/// magnitude near the centre: k'(0) = P ≠ 0, a cusp by design, so its gradient at coincident
/// particles is defined as 0 like Spiky's. The members are those described in
/// <sphad/kernels/wendland.hpp>.

namespace sphad::kernels {

/// HOCT4 (Read et al. 2010): a linear core for q ≤ α and a quartic spline outside.
struct HOCT4 {
  static constexpr KernelId id = KernelId::HOCT4;
  static constexpr const char* name = "HOCT4";
  static constexpr Center center = Center::cusp;
  static constexpr bool normalized = true;
  static constexpr double kernel_scale[3] = {2.224323, 2.192463, 2.189684410};
  static constexpr double packing_ratio = 2.158;

  static constexpr double alpha = 0.214108111463;       ///< the core radius, the smaller root of
                                                        ///< 14.6 α² − 12 α + 1.9
  static constexpr double core_slope = -2.154228492776; ///< P
  static constexpr double core_value = 0.981018558675;  ///< Q

  /// C_d as published (10 significant digits; they normalize k to about 2·10⁻¹¹).
  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1 ? R(2.0684349363) : D == 2 ? R(3.7158334191) : R(6.5150499306);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    using S = primal_t<T>;
    return core(q) ? T(S(core_slope) * q + S(core_value)) : outer<0>(q);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    using S = primal_t<T>;
    return core(q) ? T(S(core_slope)) : outer<1>(q);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    return core(q) ? T(0) : outer<2>(q);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d3k(const T& q) {
    return core(q) ? T(0) : outer<3>(q);
  }

private:
  template <class T>
  SPHAD_HOST_DEVICE static bool core(const T& q) {
    return value_of(q) <= primal_t<T>(alpha);
  }
  /// The n-th derivative of the quartic part: knots 1, ¾, ½ with coefficients 1, A, B.
  template <int Derivative, class T>
  SPHAD_HOST_DEVICE static T outer(const T& q) {
    using S = primal_t<T>;
    const S knots[3] = {S(1), S(0.75), S(0.5)};
    const S coefficients[3] = {S(1), S(16) / S(5), S(-94) / S(5)};
    return detail::truncated_power_sum<4, Derivative>(q, knots, coefficients);
  }
};

} // namespace sphad::kernels
