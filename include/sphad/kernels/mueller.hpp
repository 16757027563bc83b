// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/kernels/kernel_id.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/scalar_traits.hpp>

/// \file
/// \brief The kernels of Müller et al. 2003: Poly6, Spiky and the viscosity kernel. Members as
/// described in <sphad/kernels/wendland.hpp>.

namespace sphad::kernels {

/// Poly6: (1 − q²)³.
struct Poly6 {
  static constexpr KernelId id = KernelId::Poly6;
  static constexpr const char* name = "Poly6";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = true;
  static constexpr bool lanewise = true; // a polynomial: W pairs at once on the host
  static constexpr double kernel_scale[3] = {1.0, 1.0, 1.0};
  static constexpr double packing_ratio = 1.0;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1 ? R(35) / R(32) : D == 2 ? R(4) / pi_v<R> : R(315) / (R(64) * pi_v<R>);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    return ipow(T(1 - q * q), 3);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    const T u = 1 - q * q;
    return -6 * q * u * u;
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    const T q2 = q * q;
    return -6 * (q2 * (5 * q2 - 6) + 1);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d3k(const T& q) {
    return -6 * q * (20 * q * q - 12);
  }
};

/// Spiky: (1 − q)³, with a gradient cusp at q = 0 (k'(0) = −3).
struct Spiky {
  static constexpr KernelId id = KernelId::Spiky;
  static constexpr const char* name = "Spiky";
  static constexpr Center center = Center::cusp;
  static constexpr bool normalized = true;
  static constexpr bool lanewise = true; // a polynomial: W pairs at once on the host
  static constexpr double kernel_scale[3] = {1.0, 1.0, 1.0};
  static constexpr double packing_ratio = 1.0;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1 ? R(2) : D == 2 ? R(10) / pi_v<R> : R(15) / pi_v<R>;
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    return ipow(T(1 - q), 3);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    const T u = 1 - q;
    return -3 * u * u;
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    return 6 * (1 - q);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d3k(const T&) {
    return T(-6);
  }
};

/// Müller's viscosity kernel −q³/2 + q² + 1/(2q) − 1, singular at q = 0.
/// Not normalizable in 1D (the integral diverges); the 2D constant is 10/(3π), which
/// normalizes it, instead of the reference's 10/(9π), which integrates to 1/3.
struct ViscosityKernel {
  static constexpr KernelId id = KernelId::ViscosityKernel;
  static constexpr const char* name = "ViscosityKernel";
  static constexpr Center center = Center::singular;
  static constexpr bool normalized = false; // 1D diverges; 2D and 3D integrate to 1
  static constexpr double kernel_scale[3] = {1.0, 1.0, 1.0};
  static constexpr double packing_ratio = 1.0;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 2 ? R(10) / (R(3) * pi_v<R>) : R(15) / (R(2) * pi_v<R>);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    using S = primal_t<T>;
    return q * q * (1 - S(0.5) * q) + S(0.5) / q - 1;
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    using S = primal_t<T>;
    return q * (2 - S(1.5) * q) - S(0.5) / (q * q);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    return 1 / (q * q * q) - 3 * q + 2;
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d3k(const T& q) {
    return -3 / ipow(q, 4) - 3;
  }
};

} // namespace sphad::kernels
