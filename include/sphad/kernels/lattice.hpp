// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/kernels/dispatch.hpp>
#include <sphad/kernels/kernel_traits.hpp>
#include <sphad/kernels/properties.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

/// \file
/// \brief Lattice calibration: the summation density at a
/// node of the hypercubic lattice sℤᵈ with masses ρ₀sᵈ is ρ₀ L(n_h), n_h = h/s, with
///   L(n_h) = C_d / n_h^d Σ_{n ∈ ℤᵈ, |n| ≤ n_h} k(|n|/n_h)   (self term included).
/// The calibration factor 1/L makes that density exact. Host only.

namespace sphad::kernels {

/// The largest n_h the lattice sum accepts: its cost grows as n_h^d (at 64, about 2·10⁶ lattice
/// points in 3D); SPH uses n_h of a few.
inline constexpr double max_lattice_n_h = 64.0;

namespace detail {
/// Σ over lattice points by shells: counts of |n|² = j for j ≤ ⌊n_h²⌋, then k at √j/n_h.
template <class K, int D>
double lattice_density(double n_h) {
  const auto j_max = static_cast<std::int64_t>(std::floor(n_h * n_h));
  const auto extent = static_cast<std::int64_t>(std::floor(n_h));
  std::vector<std::int64_t> shells(static_cast<std::size_t>(j_max + 1), 0);
  const std::int64_t lo_y = D >= 2 ? -extent : 0, hi_y = D >= 2 ? extent : 0;
  const std::int64_t lo_z = D >= 3 ? -extent : 0, hi_z = D >= 3 ? extent : 0;
  for (std::int64_t a = -extent; a <= extent; ++a) {
    for (std::int64_t b = lo_y; b <= hi_y; ++b) {
      for (std::int64_t c = lo_z; c <= hi_z; ++c) {
        const std::int64_t j = a * a + b * b + c * c;
        if (j <= j_max) {
          ++shells[static_cast<std::size_t>(j)];
        }
      }
    }
  }
  double sum = 0;
  for (std::int64_t j = 0; j <= j_max; ++j) {
    const double q = std::sqrt(double(j)) / n_h;
    if (shells[static_cast<std::size_t>(j)] > 0 && q < 1) {
      sum += double(shells[static_cast<std::size_t>(j)]) * K::template k<D>(q);
    }
  }
  return K::template normalization<D, double>() / std::pow(n_h, D) * sum;
}
} // namespace detail

/// L(n_h) of the kernel type K in `dim` dimensions at n_h support radii per spacing, relative
/// to the continuum density: works for any kernel type, the library's or a user's. Throws for
/// n_h outside (0, max_lattice_n_h] (NaN included), or a bad dim.
template <class K>
double lattice_density(double n_h, int dim) {
  check_dimension("kernels::lattice_density", dim);
  SPHAD_REQUIRE(n_h > 0 && n_h <= max_lattice_n_h, "kernels::lattice_density", "n_h",
                sphad::detail::concat("must be in (0, ", max_lattice_n_h, "] (got ", n_h, ")"));
  return dim == 1   ? detail::lattice_density<K, 1>(n_h)
         : dim == 2 ? detail::lattice_density<K, 2>(n_h)
                    : detail::lattice_density<K, 3>(n_h);
}

/// `lattice_density<K>` for the kernel with runtime id `kernel`; throws also for an unknown id.
inline double lattice_density(KernelId kernel, double n_h, int dim) {
  return dispatch(kernel, [&](auto k) { return lattice_density<decltype(k)>(n_h, dim); });
}

/// The calibration factor 1/L(n_h) of the kernel type K (any kernel type) that operators
/// multiply every kernel evaluation with when calibration is on. Throws when n_h is outside
/// (0, max_lattice_n_h], and when the factor is not finite and positive (a kernel whose lattice
/// sum is ≤ 0 there); the latter names `argument` of `function` (an operator call names its
/// `options.calibration_n_h`).
template <class K>
double lattice_density_factor(double n_h,
                              int dim,
                              const char* function = "kernels::lattice_density_factor",
                              const char* argument = "n_h") {
  const double factor = 1.0 / kernels::lattice_density<K>(n_h, dim);
  SPHAD_REQUIRE(std::isfinite(factor) && factor > 0, function, argument,
                sphad::detail::concat("gives no finite positive calibration factor for ",
                                      kernel_name_v<K>(), " (got ", factor, ")"));
  return factor;
}

/// `lattice_density_factor<K>` for the kernel with runtime id `kernel`.
inline double lattice_density_factor(KernelId kernel, double n_h, int dim) {
  return dispatch(kernel, [&](auto k) { return lattice_density_factor<decltype(k)>(n_h, dim); });
}

} // namespace sphad::kernels
