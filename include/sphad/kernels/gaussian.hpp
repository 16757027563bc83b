// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_math.hpp>
#include <sphad/kernels/kernel_id.hpp>
#include <sphad/scalar_traits.hpp>

#include <cmath>

/// \file
/// \brief The truncated Gaussian: a normal distribution of standard deviation σ = h/16, cut at
/// the support radius h = 16σ (Dehnen & Aly 2012, their comparison Gaussian). In q = r/h,
/// k(q) = exp(−128 q²), and the members are those described in <sphad/kernels/wendland.hpp>.
///
/// C_d = (128/π)^(d/2) normalizes the untruncated Gaussian; the truncation changes the integral
/// by about e^−128 (k(1) ≈ 2.6·10⁻⁵⁶), far below round-off, so the kernel counts as normalized.
/// Its support holds many neighbours: N_H ≈ 5120 in 3D at the reference packing, so it is a
/// kernel for accuracy studies rather than production runs.

namespace sphad::kernels {

/// Gaussian truncated at 16σ: k(q) = exp(−128 q²), smooth at q = 0 (k'(0) = 0).
struct Gaussian {
  static constexpr KernelId id = KernelId::Gaussian;
  static constexpr const char* name = "Gaussian";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = true;
  static constexpr double kernel_scale[3] = {8.0, 8.0, 8.0}; // σ/h = 1/16 in every dimension
  static constexpr double packing_ratio = 1.337;

  /// (128/π)^(d/2), written out to 21 digits (a square root is not constexpr).
  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1   ? R(6.38307648642292284704L)
           : D == 2 ? R(40.7436654315252059568L)
                    : R(260.069932786651012242L);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    using std::exp;
    return exp(T(-128 * q * q));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    return T(-256 * q * k<D>(q));
  }
  /// k'(q)/q = −256 k(q) (no division).
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk_over_q(const T& q) {
    return T(-256 * k<D>(q));
  }
  /// (k''(q) − k'(q)/q)/q² = 65536 k(q) (no division).
  template <int D, class T>
  SPHAD_HOST_DEVICE static T hessian_radial(const T& q) {
    return T(65536 * k<D>(q));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    return T((65536 * q * q - 256) * k<D>(q));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d3k(const T& q) {
    return T((196608 - 16777216 * q * q) * q * k<D>(q));
  }
};

} // namespace sphad::kernels
