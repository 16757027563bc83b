// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/math/vec.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

/// \file
/// \brief Boxes on the simple lattice, host only: a block of particles filling a box
/// (`box_block`) and the layers of wall particles around one (`box_walls`), on one lattice so
/// that fluid and wall particles sit Δx apart across the box's faces.

namespace sphad::sampling {

namespace detail {
/// The cells per axis of [lower, upper] at `spacing` (the edges must be whole multiples of it,
/// to 1e-9 relative).
template <int D>
std::array<std::int64_t, D> box_cells(const char* function,
                                      const Vec<double, D>& lower,
                                      const Vec<double, D>& upper,
                                      double spacing) {
  SPHAD_REQUIRE(std::isfinite(spacing) && spacing > 0, function, "spacing",
                sphad::detail::concat("must be finite and > 0 (got ", spacing, ")"));
  std::array<std::int64_t, D> cells{};
  for (int a = 0; a < D; ++a) {
    const double edge = upper[a] - lower[a];
    SPHAD_REQUIRE(std::isfinite(lower[a]) && std::isfinite(upper[a]) && edge > 0, function, "upper",
                  sphad::detail::concat("must exceed lower on every axis (axis ", a, ": [",
                                        lower[a], ", ", upper[a], "])"));
    const double count = edge / spacing;
    const auto whole = std::llround(count);
    SPHAD_REQUIRE(whole >= 1 && std::abs(count - double(whole)) <= 1e-9 * count, function,
                  "spacing",
                  sphad::detail::concat("must divide the box's edges (axis ", a, ": ", edge, " / ",
                                        spacing, " = ", count, ")"));
    cells[std::size_t(a)] = whole;
  }
  return cells;
}

/// Calls f(cell index) for every cell of the index box [first, last) (x fastest).
template <int D, class F>
void for_each_cell(const std::array<std::int64_t, D>& first,
                   const std::array<std::int64_t, D>& last,
                   F&& f) {
  std::array<std::int64_t, D> i = first;
  for (;;) {
    f(i);
    int a = 0;
    for (; a < D; ++a) {
      if (++i[std::size_t(a)] < last[std::size_t(a)]) {
        break;
      }
      i[std::size_t(a)] = first[std::size_t(a)];
    }
    if (a == D) {
      return;
    }
  }
}
} // namespace detail

/// The particles of a block filling the box [lower, upper]: the cell centres lower + (i + ½)Δx
/// (x varies fastest). Throws `InvalidArgument` for a spacing that is not finite and > 0 or
/// does not divide the edges, and for upper ≤ lower on an axis.
template <int D>
std::vector<Vec<double, D>>
box_block(const Vec<double, D>& lower, const Vec<double, D>& upper, double spacing) {
  static_assert(D >= 1 && D <= 3, "sphad::sampling: the dimension D must be 1, 2 or 3");
  const auto cells = detail::box_cells<D>("sampling::box_block", lower, upper, spacing);
  std::vector<Vec<double, D>> out;
  detail::for_each_cell<D>({}, cells, [&](const std::array<std::int64_t, D>& i) {
    Vec<double, D> x;
    for (int a = 0; a < D; ++a) {
      x[a] = lower[a] + (double(i[std::size_t(a)]) + 0.5) * spacing;
    }
    out.push_back(x);
  });
  return out;
}

/// `layers` layers of wall particles around the box [lower, upper], on the lattice of
/// `box_block` continued outwards (the first layer Δx/2 outside each face, corners filled).
/// A face whose `open_upper` entry is true (the top of a tank) has no wall, and the walls
/// beside it end at its height. Sphad's rule for Adami walls: layers ≥ ⌈h/Δx⌉ for a support
/// radius h, so that no fluid particle sees past the wall. Throws `InvalidArgument` as
/// `box_block`, and for layers < 1.
template <int D>
std::vector<Vec<double, D>> box_walls(const Vec<double, D>& lower,
                                      const Vec<double, D>& upper,
                                      double spacing,
                                      int layers,
                                      const std::array<bool, D>& open_upper = {}) {
  static_assert(D >= 1 && D <= 3, "sphad::sampling: the dimension D must be 1, 2 or 3");
  constexpr const char* function = "sampling::box_walls";
  SPHAD_REQUIRE(layers >= 1, function, "layers",
                sphad::detail::concat("must be >= 1 (got ", layers, ")"));
  const auto cells = detail::box_cells<D>(function, lower, upper, spacing);
  std::array<std::int64_t, D> first{}, last{};
  for (int a = 0; a < D; ++a) {
    first[std::size_t(a)] = -layers;
    last[std::size_t(a)] = cells[std::size_t(a)] + (open_upper[std::size_t(a)] ? 0 : layers);
  }
  std::vector<Vec<double, D>> out;
  detail::for_each_cell<D>(first, last, [&](const std::array<std::int64_t, D>& i) {
    bool inside = true;
    Vec<double, D> x;
    for (int a = 0; a < D; ++a) {
      const auto k = i[std::size_t(a)];
      inside = inside && k >= 0 && k < cells[std::size_t(a)];
      x[a] = lower[a] + (double(k) + 0.5) * spacing;
    }
    if (!inside) {
      out.push_back(x);
    }
  });
  return out;
}

} // namespace sphad::sampling
