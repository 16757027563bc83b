// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/math/periodic.hpp>
#include <sphad/math/vec.hpp>

#include <cfloat>
#include <cmath>
#include <type_traits>

/// \file
/// \brief `Domain<D, T>`: the simulation box and which of its axes are periodic.

namespace sphad {

/// An axis-aligned box [min, max) with per-axis periodicity. Periodic axes wrap with period
/// L = max − min; positions may be unwrapped by any number of periods. On non-periodic axes the
/// bounds only lay out the search grid: particles outside them are still found (they share the
/// boundary cells), so a box that covers the particles keeps searches fast. Never
/// differentiable: the bounds are plain float or double.
template <int D, class T>
struct Domain {
  static_assert(D >= 1 && D <= 3, "sphad::Domain: the dimension D must be 1, 2 or 3");
  static_assert(std::is_floating_point_v<T>,
                "sphad::Domain: bounds are plain float or double (never dual: domains are never "
                "differentiable)");
  Vec<T, D> min;
  Vec<T, D> max;
  Vec<bool, D> periodic{};

  /// max − min per axis.
  SPHAD_HOST_DEVICE Vec<T, D> extent() const { return max - min; }

  /// The minimum-image difference x_i − x_j (periodic axes wrapped into [−L/2, L/2)).
  template <class S>
  SPHAD_HOST_DEVICE SPHAD_INLINE Vec<S, D> difference(const Vec<S, D>& x_i,
                                                      const Vec<S, D>& x_j) const {
    return minimum_image(Vec<S, D>(x_i - x_j), extent(), periodic);
  }
};

/// Checks a domain on the host: finite bounds with a finite extent max − min (±DBL_MAX as
/// "unbounded" overflows it), min < max on periodic axes and min ≤ max on the others; throws
/// `InvalidArgument` naming `argument` from `function`.
template <int D, class T>
void validate_domain(const Domain<D, T>& domain, const char* function, const char* argument) {
  for (int a = 0; a < D; ++a) {
    SPHAD_REQUIRE(std::isfinite(domain.min[a]) && std::isfinite(domain.max[a]), function, argument,
                  detail::concat("bounds must be finite (axis ", a, ": got [", domain.min[a], ", ",
                                 domain.max[a], "])"));
    SPHAD_REQUIRE(std::isfinite(domain.max[a] - domain.min[a]), function, argument,
                  detail::concat("the extent max - min overflows (axis ", a, ": got [",
                                 domain.min[a], ", ", domain.max[a],
                                 "]); give bounds that cover the particles (on a non-periodic "
                                 "axis they only lay out the search grid)"));
    SPHAD_REQUIRE(domain.periodic[a] ? domain.min[a] < domain.max[a]
                                     : domain.min[a] <= domain.max[a],
                  function, argument,
                  detail::concat("bounds are inverted (axis ", a, ": got min ", domain.min[a],
                                 ", max ", domain.max[a], ")"));
  }
}

/// Whether a coordinate is one a pair vector can be formed from: |x| ≤ max/2 (so x_i − x_j is
/// finite); false for NaN and ±∞. Searches and operators reject positions outside this range.
template <class T>
SPHAD_HOST_DEVICE SPHAD_INLINE bool coordinate_in_range(T x) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "sphad::coordinate_in_range: coordinates are float or double");
  // FLT_MAX / DBL_MAX, not numeric_limits: the macros are constants in device code too.
  constexpr T half_max = std::is_same_v<T, float> ? T(FLT_MAX / 2) : T(DBL_MAX / 2);
  return x <= half_max && x >= -half_max;
}

} // namespace sphad
