// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/exec/sort.hpp>
#include <sphad/search/grid_layout.hpp>
#include <sphad/search/points.hpp>
#include <sphad/search/support_radius.hpp>

#include <cstdint>

#if defined(__CUDACC__)
#include <sphad/exec/cuda.hpp>
#endif

/// \file
/// \brief `HashGrid`: the reference particles sorted by cell, and `for_each_neighbor`, the one
/// traversal the neighbour list, the Verlet list and grid-traversing operators share.

namespace sphad::search {

/// What device code needs of a grid: the layout, the reference indices sorted by cell (stable:
/// ascending original index within a cell) and the first sorted slot of every cell.
template <int D, class T>
struct HashGridView {
  GridLayout<D, T> layout;
  const std::int32_t* sorted_index; ///< [Nr] original reference index per sorted slot
  const std::int32_t* cell_start;   ///< [num_cells + 1] first slot of each cell
};

/// A cell list over a reference set, in the memory of `Exec`. Build with `build_hash_grid`.
template <int D, class T, class Exec>
struct HashGrid {
  GridLayout<D, T> layout;
  T radius; ///< the largest search radius it serves (cell width ≥ radius)
  Buffer<std::int32_t, Exec> sorted_index;
  Buffer<std::int32_t, Exec> cell_start;

  HashGridView<D, T> view() const { return {layout, sorted_index.data(), cell_start.data()}; }
};

namespace detail {
template <int D, class T>
struct CellKeys {
  GridLayout<D, T> layout;
  const Vec<T, D>* positions;
  std::uint32_t* keys;
  std::int32_t* index;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    keys[i] = static_cast<std::uint32_t>(layout.key(layout.cell_of(positions[i])));
    index[i] = static_cast<std::int32_t>(i);
  }
};

/// cell_start[c] = first sorted slot whose key is ≥ c (a binary search: deterministic, no
/// atomics).
struct CellStarts {
  const std::uint32_t* keys;
  std::int64_t n;
  std::int32_t* cell_start;
  SPHAD_HOST_DEVICE void operator()(std::int64_t cell) const {
    std::int64_t lo = 0, hi = n;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) / 2;
      if (std::int64_t(keys[mid]) < cell) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    cell_start[cell] = static_cast<std::int32_t>(lo);
  }
};
} // namespace detail

/// Sorts `references` into the cells of a grid whose cells are at least `radius` wide (at
/// most max(8 Nr, 4096) cells, so memory stays linear). Positions and supports are not copied:
/// traversals read them through the same view. Host: synchronous. CUDA: asynchronous, scratch
/// stream-ordered, no host read.
template <int D, class T, class Exec>
HashGrid<D, T, Exec> build_hash_grid(const Exec& exec,
                                     const SearchPoints<D, T>& references,
                                     const Domain<D, T>& domain,
                                     T radius) {
  const std::int64_t n = references.size();
  const std::int64_t max_cells = n * 8 > 4096 ? n * 8 : 4096;
  HashGrid<D, T, Exec> grid{make_grid_layout(domain, radius, max_cells), radius,
                            Buffer<std::int32_t, Exec>(exec, n), Buffer<std::int32_t, Exec>()};
  grid.cell_start = Buffer<std::int32_t, Exec>(exec, grid.layout.num_cells + 1);
  Buffer<std::uint32_t, Exec> keys(exec, n);
  exec::for_each_index(exec, n,
                       detail::CellKeys<D, T>{grid.layout, references.positions.data, keys.data(),
                                              grid.sorted_index.data()});
  exec::stable_sort_by_key(exec, keys.data(), grid.sorted_index.data(), n);
  exec::for_each_index(exec, grid.layout.num_cells + 1,
                       detail::CellStarts{keys.data(), n, grid.cell_start.data()});
  return grid;
}

/// Calls f(j) for every reference j that is a neighbour of the point (x_i, h_i) under scheme S
/// (`is_neighbor` with the given skin), each once, in the canonical order: stencil cells in
/// lexicographic order of their offsets (axis 0 slowest, −1 before 0 before +1, repeated cells
/// of short periodic axes skipped), then ascending original index within a cell. Building a
/// neighbour list and traversing the grid both go through here, so they visit the same pairs in
/// the same order (decision N5).
template <SupportScheme S, int D, class T, class F>
SPHAD_HOST_DEVICE void for_each_neighbor(const HashGridView<D, T>& grid,
                                         const SearchPoints<D, T>& references,
                                         const Vec<T, D>& x_i,
                                         T h_i,
                                         T skin,
                                         F&& f) {
  const auto& layout = grid.layout;
  const Vec<int, D> home = layout.cell_of(x_i);
  int cells[D][3] = {};
  int counts[D] = {};
  int total = 1;
  for (int a = 0; a < D; ++a) {
    counts[a] = 0;
    for (int offset = -1; offset <= 1; ++offset) {
      int c = home[a] + offset;
      if (layout.domain.periodic[a]) {
        c = (c + layout.cells[a]) % layout.cells[a];
      } else if (c < 0 || c >= layout.cells[a]) {
        continue;
      }
      bool seen = false;
      for (int k = 0; k < counts[a]; ++k) {
        seen = seen || cells[a][k] == c;
      }
      if (!seen) {
        cells[a][counts[a]++] = c;
      }
    }
    total *= counts[a];
  }
  for (int s = 0; s < total; ++s) {
    Vec<int, D> cell{};
    int rest = s;
    for (int a = D - 1; a >= 0; --a) {
      cell[a] = cells[a][rest % counts[a]];
      rest /= counts[a];
    }
    const std::int64_t key = layout.key(cell);
    for (std::int32_t slot = grid.cell_start[key]; slot < grid.cell_start[key + 1]; ++slot) {
      const std::int32_t j = grid.sorted_index[slot];
      if (is_neighbor<S>(layout.domain, x_i, references.positions[j], h_i, references.supports[j],
                         skin)) {
        f(j);
      }
    }
  }
}

} // namespace sphad::search
