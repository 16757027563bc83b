// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/math/scalar.hpp>

#include <cmath>

/// \file
/// \brief The search's inclusion rule: a pair (i, j) is a neighbour when its minimum-image
/// distance is at most its search radius.

namespace sphad::search {

/// The search radius of a pair under scheme S: Gather h_i, Scatter h_j, MeanSymmetric
/// (h_i + h_j)/2, the others max(h_i, h_j) (the averaging schemes need every pair either
/// support reaches).
template <SupportScheme S, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE T search_radius(T h_i, T h_j) {
  return kernels::pair_support<S>(h_i, h_j);
}

/// A support scheme's name, as the enum spells it ("unknown" for other values).
constexpr const char* support_scheme_name(int scheme) {
  switch (scheme) {
  case int(SupportScheme::Gather):
    return "Gather";
  case int(SupportScheme::Scatter):
    return "Scatter";
  case int(SupportScheme::MeanSymmetric):
    return "MeanSymmetric";
  case int(SupportScheme::KernelMeanSymmetric):
    return "KernelMeanSymmetric";
  case int(SupportScheme::SuperSymmetric):
    return "SuperSymmetric";
  case int(SupportScheme::PartialSymmetric):
    return "PartialSymmetric";
  default:
    return "unknown";
  }
}

/// Whether a list searched under scheme `list` holds every pair that scheme `op` needs, for any
/// supports: the schemes searching max(h_i, h_j) hold every scheme's pairs; the others only
/// their own radius rule's (h_i, h_j or the mean).
constexpr bool search_covers(int list, SupportScheme op) {
  const auto rule = [](int s) {
    return s == int(SupportScheme::Gather)          ? 0
           : s == int(SupportScheme::Scatter)       ? 1
           : s == int(SupportScheme::MeanSymmetric) ? 2
                                                    : 3;
  };
  return rule(list) == 3 || rule(list) == rule(int(op));
}

/// The largest search radius any pair can have, from the largest supports of each set.
template <SupportScheme S, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE T max_search_radius(T max_h_query, T max_h_reference) {
  return search_radius<S>(max_h_query, max_h_reference);
}

/// The position moved by whole periods into [min, max) on periodic axes (unchanged on the
/// others). The search compares wrapped positions, so each is wrapped once, not once per pair.
template <int D, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE Vec<T, D> wrap_position(const Domain<D, T>& domain, Vec<T, D> x) {
  using std::floor;
  for (int a = 0; a < D; ++a) {
    if (domain.periodic[a]) {
      const T period = domain.max[a] - domain.min[a];
      x[a] -= period * floor((x[a] - domain.min[a]) / period);
    }
  }
  return x;
}

/// The periods of a domain prepared for the pair test: period and half period per axis,
/// +∞ on non-periodic axes, so every axis takes the same branch-free path.
template <int D, class T>
struct PairPeriods {
  Vec<T, D> period;
  Vec<T, D> half;

  SPHAD_HOST_DEVICE SPHAD_INLINE explicit PairPeriods(const Domain<D, T>& domain) {
    SPHAD_PRAGMA_UNROLL
    for (int a = 0; a < D; ++a) {
      period[a] = domain.periodic[a] ? domain.max[a] - domain.min[a] : T(INFINITY);
      half[a] = domain.periodic[a] ? T(0.5) * period[a] : T(INFINITY);
    }
  }
};

/// Whether wrapped positions are a pair: the difference of two wrapped coordinates lies within
/// one period, so one conditional shift gives the minimum image in [−L/2, L/2); then
/// |x_ij|² ≤ (radius + skin)², inclusive. The one predicate the grid search, the Verlet filter
/// and the brute force share.
template <SupportScheme S, int D, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE bool is_neighbor_wrapped(const PairPeriods<D, T>& periods,
                                                        const Vec<T, D>& x_i,
                                                        const Vec<T, D>& x_j,
                                                        T h_i,
                                                        T h_j,
                                                        T skin) {
  T r2 = T(0);
  SPHAD_PRAGMA_UNROLL
  for (int a = 0; a < D; ++a) {
    T d = x_i[a] - x_j[a];
    d -= d >= periods.half[a] ? periods.period[a] : T(0);
    d += d < -periods.half[a] ? periods.period[a] : T(0);
    r2 += d * d;
  }
  const T radius = search_radius<S>(h_i, h_j) + skin;
  return r2 <= radius * radius;
}

/// The same for unwrapped positions (any number of periods away).
template <SupportScheme S, int D, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE bool is_neighbor(const Domain<D, T>& domain,
                                                const Vec<T, D>& x_i,
                                                const Vec<T, D>& x_j,
                                                T h_i,
                                                T h_j,
                                                T skin = T(0)) {
  return is_neighbor_wrapped<S>(PairPeriods<D, T>(domain), wrap_position(domain, x_i),
                                wrap_position(domain, x_j), h_i, h_j, skin);
}

} // namespace sphad::search
