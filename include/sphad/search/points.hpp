// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/math/vec.hpp>
#include <sphad/span.hpp>

#include <cstdint>

/// \file
/// \brief `SearchPoints<D, T>`: a non-owning view of positions and supports for the search.

namespace sphad {

/// Positions [N, D] (an array of `Vec<T, D>`, i.e. row-major N×D) and supports [N] of one
/// particle set, in the memory of the execution space used with it. No copy is made.
template <int D, class T>
struct SearchPoints {
  Span<const Vec<T, D>> positions;
  Span<const T> supports;

  SPHAD_HOST_DEVICE SPHAD_INLINE std::int64_t size() const { return positions.size(); }
};

/// Views `n` positions stored row-major as n×D scalars, and `n` supports.
template <int D, class T>
SearchPoints<D, T> search_points(const T* positions,
                                 std::int64_t num_positions,
                                 const T* supports,
                                 std::int64_t num_supports) {
  return {{reinterpret_cast<const Vec<T, D>*>(positions), num_positions}, {supports, num_supports}};
}

} // namespace sphad
