// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/kernels/detail/truncated_powers.hpp>
#include <sphad/kernels/kernel_id.hpp>
#include <sphad/math/scalar.hpp>
#include <sphad/scalar_traits.hpp>

/// \file
/// \brief The B-spline kernels (cubic M4, quartic M5, quintic M6, and the Schoenberg B7, B8):
/// k(q) = Σ_i c_i (t_i − q)₊^P on the support [0, 1]. One shape definition serves the five; each
/// type lists its knots, coefficients and constants. The members are those described in
/// <sphad/kernels/wendland.hpp>.

namespace sphad::kernels {

namespace detail {
/// The members every B-spline kernel derives from its power `P` and its knots/coefficients
/// (provided by `Spline::knots<S>()` and `Spline::coefficients<S>()` as arrays of S).
template <class Spline, int P>
struct BSplineShape {
  template <int D, class T>
  SPHAD_HOST_DEVICE static T k(const T& q) {
    return ladder<0>(q);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T dk(const T& q) {
    return ladder<1>(q);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d2k(const T& q) {
    return ladder<2>(q);
  }
  template <int D, class T>
  SPHAD_HOST_DEVICE static T d3k(const T& q) {
    return ladder<3>(q);
  }

private:
  template <int Derivative, class T>
  SPHAD_HOST_DEVICE static T ladder(const T& q) {
    using S = primal_t<T>;
    const auto knots = Spline::template knots<S>();
    const auto coefficients = Spline::template coefficients<S>();
    return truncated_power_sum<P, Derivative>(q, knots.values, coefficients.values);
  }
};

template <class S, int N>
struct Constants {
  S values[N];
};
} // namespace detail

/// Cubic spline M4: (1 − q)₊³ − 4(½ − q)₊³.
struct CubicSpline : detail::BSplineShape<CubicSpline, 3> {
  static constexpr KernelId id = KernelId::CubicSpline;
  static constexpr const char* name = "CubicSpline";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = true;
  static constexpr double kernel_scale[3] = {1.732051, 1.778002, 1.825742};
  static constexpr double packing_ratio = 1.292 * 1.0175;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1 ? R(8) / R(3) : D == 2 ? R(80) / (R(7) * pi_v<R>) : R(16) / pi_v<R>;
  }
  template <class S>
  SPHAD_HOST_DEVICE static constexpr detail::Constants<S, 2> knots() {
    return {{S(1), S(1) / S(2)}};
  }
  template <class S>
  SPHAD_HOST_DEVICE static constexpr detail::Constants<S, 2> coefficients() {
    return {{S(1), S(-4)}};
  }
};

/// Quartic spline M5: (1 − q)₊⁴ − 5(3/5 − q)₊⁴ + 10(1/5 − q)₊⁴.
struct QuarticSpline : detail::BSplineShape<QuarticSpline, 4> {
  static constexpr KernelId id = KernelId::QuarticSpline;
  static constexpr const char* name = "QuarticSpline";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = true;
  static constexpr double kernel_scale[3] = {1.936492, 1.977173, 2.018932};
  static constexpr double packing_ratio = 1.203;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1   ? R(3125) / R(768)
           : D == 2 ? R(46875) / (R(2398) * pi_v<R>)
                    : R(15625) / (R(512) * pi_v<R>);
  }
  template <class S>
  SPHAD_HOST_DEVICE static constexpr detail::Constants<S, 3> knots() {
    return {{S(1), S(3) / S(5), S(1) / S(5)}};
  }
  template <class S>
  SPHAD_HOST_DEVICE static constexpr detail::Constants<S, 3> coefficients() {
    return {{S(1), S(-5), S(10)}};
  }
};

/// Quintic spline M6: (1 − q)₊⁵ − 6(2/3 − q)₊⁵ + 15(1/3 − q)₊⁵.
struct QuinticSpline : detail::BSplineShape<QuinticSpline, 5> {
  static constexpr KernelId id = KernelId::QuinticSpline;
  static constexpr const char* name = "QuinticSpline";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = true;
  static constexpr double kernel_scale[3] = {2.121321, 2.158131, 2.195775};
  static constexpr double packing_ratio = 1.595 * 1.1425;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1   ? R(243) / R(40)
           : D == 2 ? R(15309) / (R(478) * pi_v<R>)
                    : R(2187) / (R(40) * pi_v<R>);
  }
  template <class S>
  SPHAD_HOST_DEVICE static constexpr detail::Constants<S, 3> knots() {
    return {{S(1), S(2) / S(3), S(1) / S(3)}};
  }
  template <class S>
  SPHAD_HOST_DEVICE static constexpr detail::Constants<S, 3> coefficients() {
    return {{S(1), S(-6), S(15)}};
  }
};

/// Schoenberg B7, the degree-6 B-spline with knots 1/7, 3/7, 5/7 (id 34).
struct B7 : detail::BSplineShape<B7, 6> {
  static constexpr KernelId id = KernelId::B7;
  static constexpr const char* name = "B7";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = true;
  static constexpr double kernel_scale[3] = {2.291288, 2.325170, 2.359700};
  static constexpr double packing_ratio = 1.595 * 1.1425;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1   ? R(823543) / R(92160)
           : D == 2 ? R(5764801) / (R(113149) * pi_v<R>)
                    : R(5764801) / (R(61440) * pi_v<R>);
  }
  template <class S>
  SPHAD_HOST_DEVICE static constexpr detail::Constants<S, 4> knots() {
    return {{S(1), S(5) / S(7), S(3) / S(7), S(1) / S(7)}};
  }
  template <class S>
  SPHAD_HOST_DEVICE static constexpr detail::Constants<S, 4> coefficients() {
    return {{S(1), S(-7), S(21), S(-35)}};
  }
};

/// Schoenberg B8, the degree-7 B-spline with knots 1/4, 1/2, 3/4 (id 33).
struct B8 : detail::BSplineShape<B8, 7> {
  static constexpr KernelId id = KernelId::B8;
  static constexpr const char* name = "B8";
  static constexpr Center center = Center::smooth;
  static constexpr bool normalized = true;
  static constexpr double kernel_scale[3] = {2.449490, 2.481044, 2.513123};
  static constexpr double packing_ratio = 1.595 * 1.1425;

  template <int D, class R>
  SPHAD_HOST_DEVICE static constexpr R normalization() {
    return D == 1   ? R(4096) / R(315)
           : D == 2 ? R(589824) / (R(7435) * pi_v<R>)
                    : R(16384) / (R(105) * pi_v<R>);
  }
  template <class S>
  SPHAD_HOST_DEVICE static constexpr detail::Constants<S, 4> knots() {
    return {{S(1), S(3) / S(4), S(1) / S(2), S(1) / S(4)}};
  }
  template <class S>
  SPHAD_HOST_DEVICE static constexpr detail::Constants<S, 4> coefficients() {
    return {{S(1), S(-8), S(28), S(-56)}};
  }
};

} // namespace sphad::kernels
