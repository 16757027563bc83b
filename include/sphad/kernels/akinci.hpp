// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_math.hpp>
#include <sphad/kernels/kernel_id.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/scalar_traits.hpp>

#include <cmath>

/// \file
/// \brief The surface-tension kernels of Akinci et al. 2013: cohesion and adhesion.
/// Special-purpose, not normalized. Members as described in <sphad/kernels/wendland.hpp>.

namespace sphad::kernels {

/// Cohesion: (1 − q)³q³, minus 1/64 and doubled for q < ½.
struct CohesionKernel {
  static constexpr KernelId id = KernelId::CohesionKernel;
  static constexpr const char* name = "CohesionKernel";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = false;
  static constexpr double kernel_scale[3] = {1.0, 1.0, 1.0};
  static constexpr double packing_ratio = 1.0;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return R(32) / pi_v<R>;
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    using S = primal_t<T>;
    const T outer = ipow<3>(T(q * (1 - q)));
    return value_of(q) < S(0.5) ? T(2 * outer - S(1) / S(64)) : outer;
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    const T u = 1 - q;
    return inner_doubled(q, T(-3 * q * q * (2 * q - 1) * u * u));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    return inner_doubled(q, T(6 * q * (q * (q * (10 - 5 * q) - 6) + 1)));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d3k(const T& q) {
    return inner_doubled(q, T(q * (q * (180 - 120 * q) - 72) + 6));
  }

private:
  template <class T>
  SPHAD_HOST_DEVICE static T inner_doubled(const T& q, const T& x) {
    return value_of(q) < primal_t<T>(0.5) ? T(2 * x) : x;
  }
};

/// Adhesion: g^(1/4) with g = −4q² + 6q − 2 for q > ½, zero below. Its derivatives diverge at
/// q → 1; `evaluate` cuts every kernel off at q ≥ 1, so they never reach a result.
struct AdhesionKernel {
  static constexpr KernelId id = KernelId::AdhesionKernel;
  static constexpr const char* name = "AdhesionKernel";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = false;
  static constexpr double kernel_scale[3] = {1.0, 1.0, 1.0};
  static constexpr double packing_ratio = 1.0;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return R(7) / R(1000);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    using std::pow;
    return outside(q) ? T(0) : T(pow(g(q), primal_t<T>(0.25)));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    using std::pow;
    return outside(q) ? T(0) : T((6 - 8 * q) / (4 * pow(g(q), primal_t<T>(0.75))));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    using std::pow;
    const T p = q * (2 * q - 3) + 1; // 2q² − 3q + 1 = −g/2
    return outside(q) ? T(0) : T((q * (16 * q - 24) + 11) / (8 * pow(g(q), primal_t<T>(0.75)) * p));
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d3k(const T& q) {
    using std::pow;
    const T p = q * (2 * q - 3) + 1;
    return outside(q) ? T(0)
                      : T(3 * (3 - 4 * q) * (q * (16 * q - 24) + 15) /
                          (32 * p * p * pow(g(q), primal_t<T>(0.75))));
  }

private:
  template <class T>
  SPHAD_HOST_DEVICE static bool outside(const T& q) {
    return !(value_of(q) > primal_t<T>(0.5));
  }
  template <class T>
  SPHAD_HOST_DEVICE static T g(const T& q) {
    return q * (6 - 4 * q) - 2;
  }
};

} // namespace sphad::kernels
