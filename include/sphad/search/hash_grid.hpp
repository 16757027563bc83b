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
#include <type_traits>

#if defined(__CUDACC__)
#include <sphad/exec/cuda.hpp>
#endif

/// \file
/// \brief `HashGrid`: the reference particles sorted by cell, and `for_each_neighbor`, the one
/// traversal the neighbour list, the Verlet list and grid-traversing operators share.

namespace sphad::search {

/// What device code needs of a grid: the layout, the reference indices sorted by cell (stable:
/// ascending original index within a cell), the first sorted slot of every cell, and the
/// references' wrapped positions and supports in sorted order (contiguous per cell).
template <int D, class T>
struct HashGridView {
  GridLayout<D, T> layout;
  const std::int32_t* sorted_index;  ///< [Nr] original reference index per sorted slot
  const std::int32_t* cell_start;    ///< [num_cells + 1] first slot of each cell
  const Vec<T, D>* sorted_positions; ///< [Nr] wrapped positions per sorted slot
  const T* sorted_supports;          ///< [Nr] supports per sorted slot
  T radius;                          ///< the largest search radius (cell width ≥ radius)
};

/// A cell list over a reference set, in the memory of `Exec`. Build with `build_hash_grid`.
template <int D, class T, class Exec>
struct HashGrid {
  static_assert(std::is_floating_point_v<T>,
                "sphad::search::HashGrid: a search grid is plain float or double (never dual: "
                "neighbour structures are never differentiable)");
  GridLayout<D, T> layout;
  T radius; ///< the largest search radius it serves (cell width ≥ radius)
  Buffer<std::int32_t, Exec> sorted_index;
  Buffer<std::int32_t, Exec> cell_start;
  Buffer<Vec<T, D>, Exec> sorted_positions;
  Buffer<T, Exec> sorted_supports;

  HashGridView<D, T> view() const {
    return {layout,
            sorted_index.data(),
            cell_start.data(),
            sorted_positions.data(),
            sorted_supports.data(),
            radius};
  }
};

namespace detail {
/// The cell key of each point, 64-bit: a grid may have up to 8 Nr cells, past 2^32 for
/// 2^29 references.
template <int D, class T>
struct CellKeys {
  GridLayout<D, T> layout;
  const Vec<T, D>* positions;
  std::uint64_t* keys;
  std::int32_t* index;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    keys[i] = static_cast<std::uint64_t>(
        layout.key(layout.cell_of(wrap_position(layout.domain, positions[i]))));
    index[i] = static_cast<std::int32_t>(i);
  }
};

/// The references' wrapped positions and supports gathered into sorted order.
template <int D, class T>
struct GatherSorted {
  Domain<D, T> domain;
  SearchPoints<D, T> references;
  const std::int32_t* sorted_index;
  Vec<T, D>* sorted_positions;
  T* sorted_supports;
  SPHAD_HOST_DEVICE void operator()(std::int64_t slot) const {
    const std::int32_t j = sorted_index[slot];
    sorted_positions[slot] = wrap_position(domain, references.positions[j]);
    sorted_supports[slot] = references.supports[j];
  }
};

/// cell_start[c] = first sorted slot whose key is ≥ c (a binary search: deterministic, no
/// atomics).
struct CellStarts {
  const std::uint64_t* keys;
  std::int64_t n;
  std::int32_t* cell_start;
  SPHAD_HOST_DEVICE void operator()(std::int64_t cell) const {
    std::int64_t lo = 0, hi = n;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) / 2;
      if (keys[mid] < std::uint64_t(cell)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    cell_start[cell] = static_cast<std::int32_t>(lo);
  }
};
/// The bits a cell key of `layout` needs (keys lie in [0, num_cells)): the sorts pass over
/// those alone.
template <int D, class T>
int cell_key_bits(const GridLayout<D, T>& layout) {
  int bits = 1;
  while (bits < 63 && (std::int64_t(1) << bits) < layout.num_cells) {
    ++bits;
  }
  return bits;
}
} // namespace detail

namespace detail {
/// What a grid build needs beside the grid and may keep between builds: the cell keys and, on
/// the host, the sort's second arrays.
template <class Exec>
struct GridScratch {
  Buffer<std::uint64_t, Exec> keys, keys_alternate;
  Buffer<std::int32_t, Exec> index_alternate;
};

/// A buffer of n elements: `kept` itself when it holds n already (scratch kept from call to
/// call allocates nothing in steady state), else a new one.
template <class T, class Exec>
Buffer<T, Exec>& sized(const Exec& exec, Buffer<T, Exec>& kept, std::int64_t n) {
  if (kept.size() != n) {
    kept = Buffer<T, Exec>(exec, n);
  }
  return kept;
}

/// `build_hash_grid` over the memory of `recycled` (a grid no longer needed) and `scratch`:
/// a grid of the same sizes as the last (the same references and layout) allocates nothing on
/// the host.
template <int D, class T, class Exec>
HashGrid<D, T, Exec> build_hash_grid_over(const Exec& exec,
                                          const SearchPoints<D, T>& references,
                                          const Domain<D, T>& domain,
                                          T radius,
                                          HashGrid<D, T, Exec>&& recycled,
                                          GridScratch<Exec>& scratch) {
  const std::int64_t n = references.size();
  const std::int64_t max_cells = n * 8 > 4096 ? n * 8 : 4096;
  const auto layout = make_grid_layout(domain, radius, max_cells);
  HashGrid<D, T, Exec> grid{layout,
                            radius,
                            std::move(sized(exec, recycled.sorted_index, n)),
                            std::move(sized(exec, recycled.cell_start, layout.num_cells + 1)),
                            std::move(sized(exec, recycled.sorted_positions, n)),
                            std::move(sized(exec, recycled.sorted_supports, n))};
  Buffer<std::uint64_t, Exec>& keys = sized(exec, scratch.keys, n);
  exec::for_each_index(exec, n,
                       CellKeys<D, T>{grid.layout, references.positions.data(), keys.data(),
                                      grid.sorted_index.data()});
  if constexpr (std::is_same_v<Exec, exec::host>) {
    exec::stable_sort_by_key(exec, keys.data(), grid.sorted_index.data(), n,
                             cell_key_bits(grid.layout),
                             sized(exec, scratch.keys_alternate, n).data(),
                             sized(exec, scratch.index_alternate, n).data());
  } else {
    exec::stable_sort_by_key(exec, keys.data(), grid.sorted_index.data(), n,
                             cell_key_bits(grid.layout));
  }
  exec::for_each_index(exec, grid.layout.num_cells + 1,
                       CellStarts{keys.data(), n, grid.cell_start.data()});
  exec::for_each_index(exec, n,
                       GatherSorted<D, T>{domain, references, grid.sorted_index.data(),
                                          grid.sorted_positions.data(),
                                          grid.sorted_supports.data()});
  return grid;
}
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
  detail::GridScratch<Exec> scratch;
  return detail::build_hash_grid_over(exec, references, domain, radius, {}, scratch);
}

/// Calls f(begin, end, wraps) for the sorted slots of the stencil cells around the wrapped
/// point x that can hold a neighbour, in the canonical order: stencil cells in lexicographic order
/// of their offsets (axis 0 slowest, −1 before 0 before +1, repeated cells of short periodic axes
/// skipped), each run of cells consecutive along the last axis as one range (their slots are
/// contiguous: the last axis is the key's fastest). A cell farther from x than the grid's
/// radius (its box, by the sum of the axes' squared gaps, with a margin of 10⁻⁵ for rounding)
/// holds no neighbour and is left out: in 3D about a quarter of the 27 cells' candidates. The
/// cells left out change nothing in the pairs found or their order. `wraps`: a cell of the range
/// lies across a periodic boundary from x's cell (its index wrapped around), so that a
/// difference may need a period shift. (f may be host-only: the host list build's.)
SPHAD_EXEC_CHECK_DISABLE
template <int D, class T, class F>
SPHAD_HOST_DEVICE SPHAD_INLINE void
for_each_candidate_range(const HashGridView<D, T>& grid, const Vec<T, D>& x, F&& f) {
  const auto& layout = grid.layout;
  const Vec<int, D> home = layout.cell_of(x);
  int cells[D][3] = {};
  T gap2[D][3] = {}; // squared gap from x to the cell along the axis (0: unknown or inside)
  bool wrapped[D][3] = {};
  int counts[D] = {};
  int outer = 1;
  for (int a = 0; a < D; ++a) {
    counts[a] = 0;
    const T low = layout.domain.min[a] + T(home[a]) * layout.cell_width[a]; // home cell's box
    const bool culls = layout.domain.periodic[a] ? layout.cells[a] >= 3
                                                 : home[a] > 0 && home[a] < layout.cells[a] - 1;
    for (int offset = -1; offset <= 1; ++offset) {
      const int unwrapped = home[a] + offset;
      int c = unwrapped; // in [-1, cells]: wrapped by a compare, not a division
      if (layout.domain.periodic[a]) {
        c = c < 0 ? c + layout.cells[a] : c >= layout.cells[a] ? c - layout.cells[a] : c;
      } else if (c < 0 || c >= layout.cells[a]) {
        continue;
      }
      bool seen = false;
      for (int k = 0; k < counts[a]; ++k) {
        seen = seen || cells[a][k] == c;
      }
      if (!seen) {
        // Edge cells of a non-periodic axis also hold the points beyond the domain: no gap.
        const T gap = !culls || offset == 0 ? T(0)
                      : offset < 0          ? x[a] - low
                                            : low + layout.cell_width[a] - x[a];
        gap2[a][counts[a]] = gap > T(0) ? gap * gap : T(0);
        wrapped[a][counts[a]] = c != unwrapped;
        cells[a][counts[a]++] = c;
      }
    }
    outer *= a + 1 < D ? counts[a] : 1;
  }
  const T reach = grid.radius * T(1.00001);
  const T reach2 = reach * reach;
  constexpr int last = D - 1;
  int ks[D] = {}; // the outer axes' stencil positions, an odometer (axis last − 1 fastest)
  for (int s = 0; s < outer; ++s) {
    Vec<int, D> cell{};
    T row_gap2 = T(0);
    bool row_wraps = false;
    for (int a = 0; a < last; ++a) {
      cell[a] = cells[a][ks[a]];
      row_gap2 += gap2[a][ks[a]];
      row_wraps = row_wraps || wrapped[a][ks[a]];
    }
    for (int a = last - 1; a >= 0; --a) {
      if (++ks[a] < counts[a]) {
        break;
      }
      ks[a] = 0;
    }
    for (int k = 0; k < counts[last];) {
      if (row_gap2 + gap2[last][k] > reach2) {
        ++k; // too far: no neighbour in this cell
        continue;
      }
      int run = 1; // cells k, k + 1, ... consecutive along the last axis and within reach
      bool wraps = row_wraps || wrapped[last][k];
      while (k + run < counts[last] && cells[last][k + run] == cells[last][k] + run &&
             row_gap2 + gap2[last][k + run] <= reach2) {
        wraps = wraps || wrapped[last][k + run];
        ++run;
      }
      cell[last] = cells[last][k];
      const std::int64_t key = layout.key(cell);
      f(grid.cell_start[key], grid.cell_start[key + run], wraps);
      k += run;
    }
  }
}

/// Calls f(j) for every reference j of the grid that is a neighbour of the point (x_i, h_i)
/// under scheme S (`is_neighbor` with the given skin), each once, in the canonical order of
/// `for_each_candidate_range`, then ascending original index within a cell. Building a
/// neighbour list and traversing the grid both go through here, so they visit the same pairs in
/// the same order.
template <SupportScheme S, int D, class T, class F>
SPHAD_HOST_DEVICE void
for_each_neighbor(const HashGridView<D, T>& grid, const Vec<T, D>& x_i, T h_i, T skin, F&& f) {
  const Vec<T, D> x = wrap_position(grid.layout.domain, x_i);
  const PairPeriods<D, T> periods(grid.layout.domain);
  for_each_candidate_range(grid, x, [&](std::int32_t begin, std::int32_t end, bool) {
    for (std::int32_t slot = begin; slot < end; ++slot) {
      if (is_neighbor_wrapped<S>(periods, x, grid.sorted_positions[slot], h_i,
                                 grid.sorted_supports[slot], skin)) {
        f(grid.sorted_index[slot]);
      }
    }
  });
}

} // namespace sphad::search
