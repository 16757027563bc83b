// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/kernels/dispatch.hpp>
#include <sphad/math/scalar.hpp>

#include <cmath>

/// \file
/// \brief Kernel properties and support-radius helpers, host only.
///
/// With V_d = 2, π, 4π/3 the unit-ball volume: the support radius in particle spacings is
/// ξ = packing · kernelScale, and the neighbours per support N_H = V_d ξ^d.

namespace sphad::kernels {

/// Throws `InvalidArgument` naming `dim` of `function` unless dim is 1, 2 or 3.
inline void check_dimension(const char* function, int dim) {
  SPHAD_REQUIRE(dim >= 1 && dim <= 3, function, "dim",
                sphad::detail::concat("must be 1, 2 or 3 (got ", dim, ")"));
}
/// V_d, the volume of the unit ball in dim (1, 2 or 3) dimensions: 2, π, 4π/3.
inline double unit_ball_volume(int dim) {
  return dim == 1 ? 2.0 : dim == 2 ? pi_v<double> : 4.0 * pi_v<double> / 3.0;
}

/// H / h_DA, the ratio of the support radius to the Dehnen & Aly smoothing length (a property;
/// never applied inside W).
inline double kernel_scale(KernelId kernel, int dim) {
  check_dimension("kernels::kernel_scale", dim);
  return dispatch(kernel, [&](auto k) { return decltype(k)::kernel_scale[dim - 1]; });
}

/// The Dehnen & Aly packing ratio η at the reference neighbour count.
inline double packing_ratio(KernelId kernel) {
  return dispatch(kernel, [](auto k) { return decltype(k)::packing_ratio; });
}

/// The support radius in particle spacings, ξ = packing · kernelScale.
inline double support_in_spacings(KernelId kernel, int dim) {
  return packing_ratio(kernel) * kernel_scale(kernel, dim);
}

/// Neighbours in a support ball at the reference packing, N_H = V_d ξ^d.
inline double neighbours_per_support(KernelId kernel, int dim) {
  return unit_ball_volume(dim) * std::pow(support_in_spacings(kernel, dim), dim);
}

/// C_d of a kernel in dimension `dim` (double).
inline double normalization(KernelId kernel, int dim) {
  check_dimension("kernels::normalization", dim);
  return dispatch(kernel, [&](auto k) {
    using K = decltype(k);
    return dim == 1   ? K::template normalization<1, double>()
           : dim == 2 ? K::template normalization<2, double>()
                      : K::template normalization<3, double>();
  });
}

/// The support radius whose ball holds `neighbours` particles of volume `volume`:
/// 1D N v/2, 2D √(N v/π), 3D ∛(3 N v/(4π)).
inline double support_from_volume(double volume, double neighbours, int dim) {
  check_dimension("kernels::support_from_volume", dim);
  SPHAD_REQUIRE(std::isfinite(volume) && volume > 0, "kernels::support_from_volume", "volume",
                sphad::detail::concat("must be finite and > 0 (got ", volume, ")"));
  SPHAD_REQUIRE(std::isfinite(neighbours) && neighbours > 0, "kernels::support_from_volume",
                "neighbours",
                sphad::detail::concat("must be finite and > 0 (got ", neighbours, ")"));
  const double ball = neighbours * volume / unit_ball_volume(dim);
  return dim == 1 ? ball : dim == 2 ? std::sqrt(ball) : std::cbrt(ball);
}

/// Neighbours per support for n_h particles per support radius per axis: V_d n_h^d.
inline double neighbours_from_n_h(double n_h, int dim) {
  check_dimension("kernels::neighbours_from_n_h", dim);
  SPHAD_REQUIRE(std::isfinite(n_h) && n_h > 0, "kernels::neighbours_from_n_h", "n_h",
                sphad::detail::concat("must be finite and > 0 (got ", n_h, ")"));
  return unit_ball_volume(dim) * std::pow(n_h, dim);
}

/// The inverse of `neighbours_from_n_h`: (N / V_d)^(1/d).
inline double n_h_from_neighbours(double neighbours, int dim) {
  check_dimension("kernels::n_h_from_neighbours", dim);
  SPHAD_REQUIRE(std::isfinite(neighbours) && neighbours > 0, "kernels::n_h_from_neighbours",
                "neighbours",
                sphad::detail::concat("must be finite and > 0 (got ", neighbours, ")"));
  return std::pow(neighbours / unit_ball_volume(dim), 1.0 / dim);
}

} // namespace sphad::kernels
