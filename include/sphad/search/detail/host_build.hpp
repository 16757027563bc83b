// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/exec/buffer.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/exec/scan.hpp>
#include <sphad/search/hash_grid.hpp>
#include <sphad/search/points.hpp>
#include <sphad/simd/pack.hpp>
#include <sphad/simd/pack_memory.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

/// \file
/// \brief The host's neighbour-list build: each query's candidates tested a pack at a time,
/// every thread's rows grown in its own array, in one pass over the grid.

namespace sphad::search::detail {

/// What the host's candidate test needs of one query (`append_neighbors`): its wrapped
/// position, support and the periods, and on packs their broadcasts.
template <SupportScheme S, int D, class T>
struct QueryProbe {
  Vec<T, D> x;
  T h, skin;
  PairPeriods<D, T> periods;
#if SPHAD_HAS_PACKS
  static constexpr int L = simd::native_lanes<T>();
  using P = simd::Pack<T, L>;
  P x_p[D], half[D], minus_half[D], period[D];
#endif
  /// Whether every candidate's difference may need a period shift: a periodic axis has too few
  /// cells for |x_i − x_j| < 2 cells to stay below L/2. Else only a range whose cells wrap
  /// around a periodic axis needs them (`for_each_candidate_range`'s `wraps`): for the others
  /// every shift is 0 (d − 0 is d) and the test leaves them out.
  bool few_cells = false;
  QueryProbe(const GridLayout<D, T>& layout, const Vec<T, D>& x_i, T h_i, T skin_)
      : x(wrap_position(layout.domain, x_i)), h(h_i), skin(skin_), periods(layout.domain) {
    for (int a = 0; a < D; ++a) {
      few_cells = few_cells || (layout.domain.periodic[a] && layout.cells[a] < 5);
    }
#if SPHAD_HAS_PACKS
    for (int a = 0; a < D; ++a) {
      x_p[a] = P(x[a]);
      half[a] = P(periods.half[a]);
      minus_half[a] = P(-periods.half[a]);
      period[a] = P(periods.period[a]);
    }
#endif
  }

  /// Writes slot [begin, end)'s references at `at` from `size` on, moving `size` past the
  /// neighbours only (`is_neighbor_wrapped`, the same bits: every candidate is written, the
  /// test costs no branch); on packs L candidates at a time. `wraps`: the range's cells wrap
  /// around a periodic axis.
  SPHAD_INLINE void append(const HashGridView<D, T>& grid,
                           std::int32_t begin,
                           std::int32_t end,
                           bool wraps,
                           std::int32_t* at,
                           std::int64_t& size) const {
    if (wraps || few_cells) {
      append_from<true>(grid, begin, end, at, size);
    } else {
      append_from<false>(grid, begin, end, at, size);
    }
  }
  template <bool Shifts>
  SPHAD_INLINE void append_from(const HashGridView<D, T>& grid,
                                std::int32_t begin,
                                std::int32_t end,
                                std::int32_t* at,
                                std::int64_t& size) const {
    std::int32_t slot = begin;
    std::int64_t n = size; // a local: the row's stores cannot alias it, it stays in a register
#if SPHAD_HAS_PACKS
    static_assert(sizeof(Vec<T, D>) == D * sizeof(T), "positions are D contiguous scalars");
    for (; slot + L <= end; slot += L) {
      P xs[D];
      simd::load_components<D>(reinterpret_cast<const T*>(grid.sorted_positions + slot), xs);
      T rs[L];
      SPHAD_PRAGMA_UNROLL
      for (int l = 0; l < L; ++l) {
        rs[l] = search_radius<S>(h, grid.sorted_supports[slot + l]) + skin;
      }
      P r2(T(0));
      SPHAD_PRAGMA_UNROLL
      for (int a = 0; a < D; ++a) {
        P d = x_p[a] - xs[a];
        if constexpr (Shifts) {
          d = d - select(d >= half[a], period[a], P(T(0))); // d − 0 is d: the scalar shifts
          d = d + select(d < minus_half[a], period[a], P(T(0)));
        }
        r2 += d * d;
      }
      const P radius = simd::pack_of(rs);
      const unsigned bits = simd::lane_bits(r2 <= radius * radius);
      simd::compress_store<L>(grid.sorted_index + slot, bits, at, n);
    }
#endif
    for (; slot < end; ++slot) {
      at[n] = grid.sorted_index[slot];
      n += is_neighbor_wrapped<S>(periods, x, grid.sorted_positions[slot], h,
                                  grid.sorted_supports[slot], skin)
               ? 1
               : 0;
    }
    size = n;
  }
};

/// One chunk's rows as they grow: int32 from `std::malloc`, grown by `std::realloc`
/// uninitialized (a large block is remapped, not copied, and no page is written twice), and
/// handed to a `Buffer` without a copy.
class HostRows {
public:
  HostRows() = default;
  /// Rows that grow in `memory` (a buffer no longer needed, its pages written already).
  explicit HostRows(Buffer<std::int32_t, exec::host>&& memory) : memory_(std::move(memory)) {}
  /// The array, with room for at least n entries (twice the old room when it grows).
  std::int32_t* reserve(std::int64_t n) {
    if (n > capacity()) {
      resize(std::max(n, 2 * capacity()));
    }
    return memory_.data();
  }
  /// Room for exactly n entries, the first min(n, old room) kept (`resize_host`).
  void resize(std::int64_t n) { sphad::detail::resize_host(memory_, n); }
  std::int32_t* data() { return memory_.data(); }
  const std::int32_t* data() const { return memory_.data(); }
  std::int64_t capacity() const { return memory_.size(); }
  /// The first n entries as a buffer (the array shrunk in place to them).
  Buffer<std::int32_t, exec::host> release(std::int64_t n) {
    resize(n);
    return std::exchange(memory_, {});
  }

private:
  Buffer<std::int32_t, exec::host> memory_; // its size is the room
};

/// Whether the queries lie in memory as a solver that sorts its particles keeps them —
/// consecutive queries mostly in the same or an adjacent cell of `layout`, whatever key they were
/// sorted by — judged from up to 4096 consecutive pairs spread over the set. Then the build
/// visits them in their own order: the candidates' reads stay as local as in the grid's cell
/// order, and each row lands where the list wants it (no array per row to copy from, see
/// `build_rows_once`). Particles in random order are visited in cell order.
template <int D, class T>
bool queries_are_clustered(const GridLayout<D, T>& layout, const SearchPoints<D, T>& queries) {
  constexpr std::int64_t samples = 4096;
  const std::int64_t pairs = queries.size() - 1;
  if (pairs < 1) {
    return true;
  }
  const std::int64_t n = std::min(samples, pairs);
  std::int64_t near = 0;
  for (std::int64_t s = 0; s < n; ++s) {
    const std::int64_t i = s * pairs / n;
    const auto a = layout.cell_of(wrap_position(layout.domain, queries.positions[i]));
    const auto b = layout.cell_of(wrap_position(layout.domain, queries.positions[i + 1]));
    bool adjacent = true;
    for (int e = 0; e < D; ++e) {
      adjacent = adjacent && a[e] - b[e] <= 1 && b[e] - a[e] <= 1;
    }
    near += adjacent ? 1 : 0;
  }
  return 2 * near >= n; // sorted by any cell key: ~90 %; random order: ~3^D / cells
}

/// The chunks' windows in a recycled list's memory (`build_rows_once` with more than one chunk):
/// the block, grown by a sixteenth (a list a little larger than the last fits), cut into equal
/// windows, one per chunk, so that every thread writes its rows into pages written before
/// instead of an array of its own. A chunk whose rows outgrow its window continues in its own
/// array. `gather` then moves each window's rows to their place in the list.
class ChunkWindows {
public:
  /// Windows for `chunks` chunks in `block` (none for 0 chunks), for a list of about
  /// `expected` entries (the last list's).
  ChunkWindows(HostRows& block, int chunks, std::int64_t expected) : chunks_(chunks) {
    if (chunks > 0) {
      const std::int64_t room = expected + expected / 16 + 256 * std::int64_t(chunks);
      if (block.capacity() < room) {
        block.resize(room + room / 8); // room to grow: a list that grows slowly, resized rarely
      }
      data_ = block.data();
      capacity_ = block.capacity();
    }
  }
  std::int32_t* at(int c) const { return data_ + begin(c); }
  std::int64_t room(int c) const { return begin(c + 1) - begin(c); }

  /// Moves chunk c's `kept[c]` rows from its window to `final_at(c)` (ascending in c, the
  /// window's at the latest: the list never lies behind a window unless an earlier chunk
  /// spilled) in `block`, grown to at least `total` first. The chunks moving toward the front go
  /// first, in ascending order, then those moving back, in descending order: a move then never
  /// writes over rows still to be moved.
  template <class FinalAt>
  void gather(HostRows& block,
              const std::int64_t* kept,
              const FinalAt& final_at,
              std::int64_t total) const {
    block.resize(std::max(total, capacity_));
    std::int32_t* data = block.data();
    const auto move = [&](int c) { // (a window already in place stays)
      std::memmove(data + final_at(c), data + begin(c),
                   sizeof(std::int32_t) * std::size_t(kept[c]));
    };
    for (int c = 0; c < chunks_; ++c) {
      if (final_at(c) < begin(c)) {
        move(c);
      }
    }
    for (int c = chunks_ - 1; c >= 0; --c) {
      if (final_at(c) > begin(c)) {
        move(c);
      }
    }
  }

private:
  std::int64_t begin(int c) const { return capacity_ * c / chunks_; }
  int chunks_;
  std::int32_t* data_ = nullptr;
  std::int64_t capacity_ = 0;
};

/// What `build_rows_once` may keep between builds: the chunks' own arrays and its index
/// arrays. A build over it keeps room in the list it returns (its array may be longer than its
/// entries), so that builds of about the same size allocate nothing.
struct RowScratch {
  std::vector<HostRows> rows;
  std::vector<std::int64_t> kept, row_at;
};

/// The host's list in one pass over the grid: the queries in cell order (`order`) split into
/// `exec::host::concurrency()` chunks, each chunk appending its rows to its own array on one
/// thread; then `offsets` [nq + 1] by a scan over the rows' counts in query order, and the
/// neighbours returned. Each row is found once, not counted then found again (the two passes
/// the device build needs to size its output without an array per thread), and its content
/// does not depend on the chunks: the same list as the two passes, bit for bit. When the cell
/// order is the query order (points already sorted by cell, the usual case in a solver that
/// sorts its particles) or `order` is null (the queries visited in their own order,
/// `queries_are_clustered`), every chunk's array is already its part of the list: the first
/// grows into the list and the others are copied after it, one block each; otherwise every row
/// is copied to its place. `recycled`: memory the list is written over (a previous list's
/// neighbours; empty for none): in query order the first chunk's array — or, with more chunks,
/// every chunk's window in it (`ChunkWindows`) —, else the list the rows are copied to;
/// `expected`: about how many entries the list will have (the recycled list's). `kept`: arrays
/// kept from the last build (`RowScratch`; null for none: the list is then exactly its entries).
template <SupportScheme S, int D, class T>
Buffer<std::int32_t, exec::host> build_rows_once(const exec::host& exec,
                                                 const HashGrid<D, T, exec::host>& grid,
                                                 const SearchPoints<D, T>& queries,
                                                 const std::int32_t* order,
                                                 T skin,
                                                 std::int64_t* offsets,
                                                 Buffer<std::int32_t, exec::host> recycled,
                                                 std::int64_t expected,
                                                 RowScratch* kept_arrays = nullptr) {
  RowScratch fresh;
  RowScratch& scratch = kept_arrays != nullptr ? *kept_arrays : fresh;
  const bool keep_room = kept_arrays != nullptr;
  const std::int64_t nq = queries.size();
  const int chunks =
      int(std::max<std::int64_t>(1, std::min<std::int64_t>(nq, exec::host::concurrency())));
  bool in_query_order = true;
  for (std::int64_t s = 0; order != nullptr && s < nq && in_query_order; ++s) {
    in_query_order = order[s] == s;
  }
  HostRows base; // in query order: the list's memory (the recycled block, when there is one)
  const bool windowed = in_query_order && chunks > 1 && recycled.size() > 0;
  if (in_query_order) {
    base = HostRows(std::move(recycled));
  }
  const ChunkWindows windows(base, windowed ? chunks : 0, expected);
  std::vector<HostRows>& rows = scratch.rows; // each chunk's own array
  if (rows.size() < std::size_t(chunks)) {
    rows.resize(std::size_t(chunks));
  }
  const auto own = [&](int c) -> HostRows& {
    return c == 0 && in_query_order && !windowed ? base : rows[std::size_t(c)];
  };
  std::vector<std::int64_t>& kept = scratch.kept; // entries in a window
  kept.assign(std::size_t(chunks), 0);
  // row i's start in its chunk's array (for the copy into place)
  std::vector<std::int64_t>& row_at = scratch.row_at;
  row_at.resize(in_query_order ? 0 : static_cast<std::size_t>(nq));
  std::int64_t* counts = offsets;
  const auto view = grid.view();
  const auto chunk_begin = [&](int c) { return nq * c / chunks; };
#if SPHAD_HAS_OPENMP
#pragma omp parallel for schedule(static, 1) if (chunks > 1)
#endif
  for (int c = 0; c < chunks; ++c) {
    HostRows& out = own(c);
    std::int32_t* window = windowed ? windows.at(c) : nullptr;
    const std::int64_t room = windowed ? windows.room(c) : 0;
    bool spilled = !windowed; // writing to `out` (else to the window)
    std::int64_t size = 0;    // entries in the array written to
    for (std::int64_t s = chunk_begin(c); s < chunk_begin(c + 1); ++s) {
      const auto i = std::int32_t(in_query_order ? s : order[s]);
      std::int64_t first = size;
      if (!in_query_order) {
        row_at[std::size_t(i)] = first;
      }
      const QueryProbe<S, D, T> probe(view.layout, queries.positions[i], queries.supports[i], skin);
      for_each_candidate_range(view, probe.x,
                               [&](std::int32_t begin, std::int32_t end, bool wraps) {
                                 const std::int64_t need = size + (end - begin);
                                 std::int32_t* at = nullptr;
                                 if (spilled) {
                                   at = out.reserve(need);
                                 } else if (need <= room) {
                                   at = window;
                                 } else {
                                   // The window is full: the rows before this one stay in it, this
                                   // row's entries so far move to the start of the chunk's own
                                   // array, and the rest follows there.
                                   kept[std::size_t(c)] = first;
                                   const std::int64_t partial = size - first;
                                   at = out.reserve(partial + (end - begin));
                                   std::copy(window + first, window + size, at);
                                   size = partial;
                                   first = 0;
                                   spilled = true;
                                 }
                                 probe.append(view, begin, end, wraps, at, size);
                               });
      counts[i] = size - first;
    }
    if (!spilled) {
      kept[std::size_t(c)] = size;
    }
  }
  counts[nq] = 0;
  exec::exclusive_scan(exec, counts, counts, nq + 1);
  const std::int64_t total = offsets[nq];
  if (in_query_order) {
    if (windowed) {
      windows.gather(
          base, kept.data(), [&](int c) { return offsets[chunk_begin(c)]; }, total);
    } else if (!keep_room || base.capacity() < total) {
      base.resize(total);
    }
#if SPHAD_HAS_OPENMP
#pragma omp parallel for schedule(static, 1) if (chunks > 1)
#endif
    for (int c = windowed ? 0 : 1; c < chunks; ++c) {
      // the chunk's entries past its window (all of them without windows) after the rest
      const std::int64_t at = offsets[chunk_begin(c)] + kept[std::size_t(c)];
      const std::int64_t n = offsets[chunk_begin(c + 1)] - at;
      if (n > 0) {
        std::memcpy(base.data() + at, rows[std::size_t(c)].data(),
                    sizeof(std::int32_t) * std::size_t(n));
      }
    }
    return base.release(keep_room ? std::max(total, base.capacity()) : total);
  }
  Buffer<std::int32_t, exec::host> neighbors = std::move(recycled);
  if (!keep_room || neighbors.size() < total) {
    sphad::detail::resize_host(neighbors, total);
  }
  std::int32_t* to = neighbors.data();
#if SPHAD_HAS_OPENMP
#pragma omp parallel for schedule(static, 1) if (chunks > 1)
#endif
  for (int c = 0; c < chunks; ++c) {
    const std::int32_t* from = rows[std::size_t(c)].data();
    for (std::int64_t s = chunk_begin(c); s < chunk_begin(c + 1); ++s) {
      const std::int32_t i = order[s];
      std::copy(from + row_at[std::size_t(i)],
                from + row_at[std::size_t(i)] + (counts[i + 1] - counts[i]), to + counts[i]);
    }
  }
  return neighbors;
}

} // namespace sphad::search::detail
