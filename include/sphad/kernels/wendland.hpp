// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/kernels/kernel_id.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/scalar_traits.hpp>

/// \file
/// \brief The Wendland kernels (C², C⁴, C⁶; positive definite): k(q) = (1 − q)ⁿ P(q), with a
/// 1D shape and a shape for D ≥ 2.
///
/// Every kernel type in `sphad::kernels` has the same members: `id`, `name`, `center`,
/// `normalized`, `kernel_scale[D − 1]`, `packing_ratio`, `normalization<D, R>()` (C_d), and the
/// shape ladder `k<D>(q)`, `dk<D>`, `d2k<D>`, `d3k<D>` (derivatives with respect to q), valid
/// for q ∈ [0, 1] and generic over plain and dual scalars.

namespace sphad::kernels {

/// Wendland C².
struct Wendland2 {
  static constexpr KernelId id = KernelId::Wendland2;
  static constexpr const char* name = "Wendland2";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = true;
  static constexpr bool lanewise = true; // polynomials: W pairs at once on the host
  static constexpr double kernel_scale[3] = {1.620185, 1.897367, 1.936492};
  static constexpr double packing_ratio = 1.487;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1 ? R(5) / R(4) : D == 2 ? R(7) / pi_v<R> : R(21) / (R(2) * pi_v<R>);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(ipow<3>(u) * (1 + 3 * q)) : T(ipow<4>(u) * (1 + 4 * q));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(-12 * q * u * u) : T(-20 * q * ipow<3>(u));
  }
  /// k'(q)/q, a polynomial (no division).
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk_over_q(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(-12 * u * u) : T(-20 * ipow<3>(u));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(-12 * u * (1 - 3 * q)) : T(20 * (4 * q - 1) * u * u);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d3k(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(48 - 72 * q) : T(120 * u * (1 - 2 * q));
  }
};

/// Wendland C⁴.
struct Wendland4 {
  static constexpr KernelId id = KernelId::Wendland4;
  static constexpr const char* name = "Wendland4";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = true;
  static constexpr bool lanewise = true; // polynomials: W pairs at once on the host
  static constexpr double kernel_scale[3] = {1.936492, 2.171239, 2.207940};
  static constexpr double packing_ratio = 1.643;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1 ? R(3) / R(2) : D == 2 ? R(9) / pi_v<R> : R(495) / (R(32) * pi_v<R>);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    using S = primal_t<T>;
    const T u = 1 - q;
    return D == 1 ? T(ipow<5>(u) * (1 + q * (5 + 8 * q)))
                  : T(ipow<6>(u) * (1 + q * (6 + S(35) / S(3) * q)));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    using S = primal_t<T>;
    const T u = 1 - q;
    return D == 1 ? T(-14 * q * (4 * q + 1) * ipow<4>(u))
                  : T(-(S(56) / S(3)) * q * (5 * q + 1) * ipow<5>(u));
  }
  /// k'(q)/q, a polynomial (no division).
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk_over_q(const T& q) {
    using S = primal_t<T>;
    const T u = 1 - q;
    return D == 1 ? T(-14 * (4 * q + 1) * ipow<4>(u))
                  : T(-(S(56) / S(3)) * (5 * q + 1) * ipow<5>(u));
  }
  /// (k''(q) − k'(q)/q)/q², a polynomial (no division).
  template <int D, class T>
  SPHAD_HOST_DEVICE static T hessian_radial(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(280 * ipow<3>(u)) : T(560 * ipow<4>(u));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    using S = primal_t<T>;
    const T u = 1 - q;
    return D == 1 ? T(14 * (q * (24 * q - 3) - 1) * ipow<3>(u))
                  : T(S(56) / S(3) * (q * (35 * q - 4) - 1) * ipow<4>(u));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d3k(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(-840 * q * (2 * q - 1) * u * u) : T(-560 * q * (7 * q - 3) * ipow<3>(u));
  }
};

/// Wendland C⁶.
struct Wendland6 {
  static constexpr KernelId id = KernelId::Wendland6;
  static constexpr const char* name = "Wendland6";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = true;
  static constexpr bool lanewise = true; // polynomials: W pairs at once on the host
  static constexpr double kernel_scale[3] = {2.207940, 2.415230, 2.449490};
  static constexpr double packing_ratio = 1.866;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1 ? R(55) / R(32) : D == 2 ? R(78) / (R(7) * pi_v<R>) : R(1365) / (R(64) * pi_v<R>);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(ipow<7>(u) * (1 + q * (7 + q * (19 + 21 * q))))
                  : T(ipow<8>(u) * (1 + q * (8 + q * (25 + 32 * q))));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(-6 * q * (q * (35 * q + 18) + 3) * ipow<6>(u))
                  : T(-22 * q * (q * (16 * q + 7) + 1) * ipow<7>(u));
  }
  /// k'(q)/q, a polynomial (no division).
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk_over_q(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(-6 * (q * (35 * q + 18) + 3) * ipow<6>(u))
                  : T(-22 * (q * (16 * q + 7) + 1) * ipow<7>(u));
  }
  /// (k''(q) − k'(q)/q)/q², a polynomial (no division).
  template <int D, class T>
  SPHAD_HOST_DEVICE static T hessian_radial(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(336 * (1 + 5 * q) * ipow<5>(u)) : T(528 * (1 + 6 * q) * ipow<6>(u));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(18 * (q * (q * (105 * q + 13) - 5) - 1) * ipow<5>(u))
                  : T(22 * (q * (q * (160 * q + 15) - 6) - 1) * ipow<6>(u));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d3k(const T& q) {
    const T u = 1 - q;
    return D == 1 ? T(-1008 * q * (q * (15 * q - 4) - 1) * ipow<4>(u))
                  : T(-1584 * q * (q * (20 * q - 5) - 1) * ipow<5>(u));
  }
};

} // namespace sphad::kernels
