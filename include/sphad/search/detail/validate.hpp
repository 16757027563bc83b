// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/exec/reduce.hpp>
#include <sphad/search/points.hpp>

#include <cmath>

namespace sphad::search::detail {

/// Host-side checks of one point set's metadata: sizes ≥ 0 that match.
template <int D, class T>
void validate_sizes(const SearchPoints<D, T>& points, const char* function, const char* name) {
  SPHAD_REQUIRE(
      points.positions.size() >= 0, function, name,
      sphad::detail::concat("has a negative size (got ", points.positions.size(), " positions)"));
  SPHAD_REQUIRE(points.supports.size() == points.positions.size(), function, name,
                sphad::detail::concat("has ", points.positions.size(), " positions but ",
                                      points.supports.size(), " supports"));
  SPHAD_REQUIRE(points.positions.size() <= 0x7fffffff, function, name,
                sphad::detail::concat("too many points for int32 indices (got ",
                                      points.positions.size(), ")"));
}

/// Host memory only: every coordinate and support finite, every coordinate within ±max/2
/// (`coordinate_in_range`: pair vectors stay finite), supports ≥ 0 and, when the caller
/// gives a bound (`max_support` ≥ 0), no larger than it (a larger one would miss pairs).
template <int D, class T>
void validate_values(const exec::host&,
                     const SearchPoints<D, T>& points,
                     T max_support,
                     const char* function,
                     const char* name) {
  for (std::int64_t i = 0; i < points.size(); ++i) {
    bool finite = std::isfinite(points.supports[i]);
    for (int a = 0; a < D; ++a) {
      finite = finite && std::isfinite(points.positions[i][a]);
    }
    SPHAD_REQUIRE(finite, function, name,
                  sphad::detail::concat("has a non-finite position or support at index ", i));
    for (int a = 0; a < D; ++a) {
      SPHAD_REQUIRE(coordinate_in_range(points.positions[i][a]), function, name,
                    sphad::detail::concat("has a position beyond half the largest float at "
                                          "index ",
                                          i, " (got ", points.positions[i][a],
                                          "): its pair vectors would overflow"));
    }
    SPHAD_REQUIRE(points.supports[i] >= 0, function, name,
                  sphad::detail::concat("has a negative support at index ", i, " (got ",
                                        points.supports[i], ")"));
    SPHAD_REQUIRE(
        max_support < T(0) || points.supports[i] <= max_support, function, "options.max_support",
        sphad::detail::concat("is below a support of `", name, "` (got ", max_support, ", support ",
                              points.supports[i], " at index ", i, "): pairs would be missed"));
  }
}

/// Device memory is not read on the host for validation; CUDA searches flag bad values on the
/// device instead and report them with the read of the list's size (see `build_neighbor_list`).
template <int D, class T, class Exec>
void validate_values(const Exec&, const SearchPoints<D, T>&, T, const char*, const char*) {}

/// The largest support of a set: the caller's bound when given (≥ 0), else computed (a device
/// reduction read back on CUDA).
template <int D, class T, class Exec>
T largest_support(const Exec& exec, const SearchPoints<D, T>& points, T given) {
  if (given >= T(0)) {
    return given;
  }
  // host sync: only when the caller gives no max_support (documented in SearchOptions)
  return exec::reduce_max(exec, points.supports.data(), points.size(), T(0));
}

/// On periodic axes the search radius (plus skin) must stay below half the period, so that a
/// pair has one minimum image.
template <int D, class T>
void validate_periodic_radius(const Domain<D, T>& domain, T radius, const char* function) {
  for (int a = 0; a < D; ++a) {
    if (domain.periodic[a]) {
      const T half = (domain.max[a] - domain.min[a]) / T(2);
      SPHAD_REQUIRE(radius < half, function, "supports",
                    sphad::detail::concat("reach half the period on periodic axis ", a,
                                          " (largest search radius ", radius, ", L/2 = ", half,
                                          "); a support must stay below half the period so "
                                          "that each pair has one nearest image"));
    }
  }
}

} // namespace sphad::search::detail
