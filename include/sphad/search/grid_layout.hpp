// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/errors.hpp>
#include <sphad/math/vec.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

/// \file
/// \brief `GridLayout<D, T>`: how space is cut into the cells of the search grid.

namespace sphad::search {

/// A uniform grid over the domain with cells at least as wide as the largest search radius, so
/// every neighbour of a point lies in its cell or an adjacent one. Periodic axes
/// are tiled exactly by n = ⌊L / c⌋ cells of width L/n ≥ c; non-periodic axes get cells of width
/// c from `min`, and points beyond the bounds fall into the boundary cells (nothing is lost).
/// Cells are numbered linearly, axis 0 slowest.
template <int D, class T>
struct GridLayout {
  Domain<D, T> domain;
  Vec<T, D> cell_width;
  Vec<int, D> cells; ///< cells per axis, ≥ 1
  std::int64_t num_cells;

  /// The cell of a position already wrapped into the domain on periodic axes (see
  /// `wrap_position`), clamped into the grid. NaN lands in cell 0, so bad input never indexes
  /// out of range.
  SPHAD_HOST_DEVICE SPHAD_INLINE Vec<int, D> cell_of(const Vec<T, D>& wrapped) const {
    Vec<int, D> cell{};
    for (int a = 0; a < D; ++a) {
      const T c = (wrapped[a] - domain.min[a]) / cell_width[a]; // truncation = floor for c ≥ 0
      cell[a] = c >= T(0) ? (c < T(cells[a]) ? int(c) : cells[a] - 1) : 0;
    }
    return cell;
  }

  /// The linear key of a cell, axis 0 slowest.
  SPHAD_HOST_DEVICE SPHAD_INLINE std::int64_t key(const Vec<int, D>& cell) const {
    std::int64_t k = cell[0];
    for (int a = 1; a < D; ++a) {
      k = k * cells[a] + cell[a];
    }
    return k;
  }
};

/// The layout for a largest search radius `radius` (≥ 0) and at most `max_cells` cells: the
/// cell width starts at the radius and grows uniformly until the cell count fits (wider cells
/// keep the search correct, only slower), so memory stays O(max_cells) for any domain. A domain
/// whose extent is not finite (the searches reject it; `validate_domain`) gets one cell per
/// axis instead of a width that never fits.
template <int D, class T>
GridLayout<D, T> make_grid_layout(const Domain<D, T>& domain, T radius, std::int64_t max_cells) {
  GridLayout<D, T> layout{domain, {}, {}, 1};
  const auto extent = domain.extent();
  T width = radius;
  for (int a = 0; a < D; ++a) { // a radius of 0 (only coincident points): one cell per ~extent
    width = std::fmax(width, extent[a] * T(1e-6));
  }
  width = std::fmax(width, std::numeric_limits<T>::min());
  for (;;) {
    if (!(width <= std::numeric_limits<T>::max())) { // grown to ∞: the extent was not finite
      layout.cells = Vec<int, D>::filled(1);
      layout.num_cells = 1;
      break;
    }
    double total = 1;
    for (int a = 0; a < D; ++a) {
      const double n = domain.periodic[a] ? std::floor(double(extent[a]) / double(width))
                                          : std::floor(double(extent[a]) / double(width)) + 1;
      layout.cells[a] = int(std::fmax(1.0, std::fmin(n, 1e9)));
      total *= layout.cells[a];
    }
    if (total <= double(max_cells)) {
      layout.num_cells = std::int64_t(total);
      break;
    }
    width *= T(1.25);
  }
  for (int a = 0; a < D; ++a) {
    layout.cell_width[a] = domain.periodic[a] ? extent[a] / T(layout.cells[a]) : width;
  }
  return layout;
}

} // namespace sphad::search
