// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/kernels/support.hpp>
#include <sphad/math/scalar.hpp>

/// \file
/// \brief The search's inclusion rule: a pair (i, j) is a neighbour when its minimum-image
/// distance is at most its search radius (ref-neighbors.md §4, decision N1).

namespace sphad::search {

/// The search radius of a pair under scheme S: Gather h_i, Scatter h_j, MeanSymmetric
/// (h_i + h_j)/2, the others max(h_i, h_j) (the averaging schemes need every pair either
/// support reaches).
template <SupportScheme S, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE T search_radius(T h_i, T h_j) {
  return kernels::pair_support<S>(h_i, h_j);
}

/// The largest search radius any pair can have, from the largest supports of each set.
template <SupportScheme S, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE T max_search_radius(T max_h_query, T max_h_reference) {
  return search_radius<S>(max_h_query, max_h_reference);
}

/// Whether (i, j) is a pair: |x_ij|² ≤ (radius + skin)², x_ij the minimum image. Inclusive; the
/// one predicate the grid search, the Verlet filter and the brute force all use.
template <SupportScheme S, int D, class T>
SPHAD_HOST_DEVICE SPHAD_INLINE bool is_neighbor(const Domain<D, T>& domain,
                                                const Vec<T, D>& x_i,
                                                const Vec<T, D>& x_j,
                                                T h_i,
                                                T h_j,
                                                T skin = T(0)) {
  const T radius = search_radius<S>(h_i, h_j) + skin;
  return norm_squared(domain.difference(x_i, x_j)) <= radius * radius;
}

} // namespace sphad::search
