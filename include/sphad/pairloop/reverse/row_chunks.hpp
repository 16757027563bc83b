// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/exec/host.hpp>
#include <sphad/pairloop/reverse/gradient_targets.hpp>
#include <sphad/pairloop/reverse/policy.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/search/neighbor_list.hpp>
#include <sphad/search/transpose.hpp>
#include <sphad/simd/pack_memory.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief The host reverse sweep's chunks of rows (`RowChunks`): how many, fixed by the list and
/// never by the thread count, each with the window of references its entries reach, where its
/// sums live (`ChunkSums`), and the references' sums over the chunks in chunk order
/// (`SumChunks`): the same bits on any number of threads.

namespace sphad::pairloop {

/// The reference side's adjoints of pair (i, j) added at j of one chunk's own window of
/// references [lo, hi) (`P` scalars per reference): the host sweep's rows run in chunks, each
/// serially into its own window, summed over the chunks afterwards (`SumChunks`).
template <int P, class S>
struct ChunkSums {
  S* data; ///< the window's sums: reference j's at (j − lo) · P
  std::int64_t lo;
  static constexpr bool clears_filtered = false;
  SPHAD_HOST_DEVICE SPHAD_INLINE void prefetch(std::int32_t j) const {
#if !SPHAD_DEVICE_PASS && defined(__GNUC__)
    __builtin_prefetch(data + (std::int64_t(j) - lo) * P, 1);
#else
    (void)j;
#endif
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE void clear(std::int64_t) const {}
  SPHAD_HOST_DEVICE SPHAD_INLINE void put(std::int64_t, std::int32_t j, const S* v) const {
    S* at = data + (std::int64_t(j) - lo) * P;
    SPHAD_PRAGMA_UNROLL
    for (int c = 0; c < P; ++c) {
      at[c] += v[c];
    }
  }
#if SPHAD_HAS_PACKS
  /// `put` of −g for the P scalars g as one pack: one vector load, subtraction and store
  /// (x − g: the bits of x + (−g)).
  SPHAD_INLINE void put_negated(std::int64_t, std::int32_t j, simd::Pack<S, P> g) const {
    S* at = data + (std::int64_t(j) - lo) * P;
    simd::store(at, simd::load<S, P>(at) - g);
  }
#endif
};

/// The chunks of a list's rows on the host. Chunk c holds rows [first_row[c], first_row[c + 1])
/// (equal shares of the pairs) and sums its references' adjoints into the window [lo[c],
/// hi[c]) of reference indices its entries reach, at offset `at[c]` (in references) of the
/// scratch. The count is the largest power of two up to `ReversePolicy::max_row_chunks` (one
/// per `min_chunk_pairs` pairs) whose windows together span at most `scratch_per_reference` ×
/// N_ref references: particles in cell order (narrow windows) get many chunks — as many threads
/// as a large machine has —, particles in random order (every window the whole set) fewer. All
/// of it follows from the list alone, so the sums have the same bits on any thread count.
struct RowChunks {
  int count = 1;
  std::vector<std::int64_t> first_row; ///< [count + 1]
  std::vector<std::int64_t> lo, hi;    ///< [count]: the references' window (empty: lo = hi)
  std::vector<std::int64_t> at;        ///< [count + 1]: window offsets; at[count] the total

  /// The first row of chunk c of n (the chunks hold equal shares of the pairs).
  static std::int64_t
  first_row_of(const std::int64_t* offsets, std::int64_t num_queries, int c, int n) {
    const std::int64_t target = offsets[num_queries] * c / n;
    return c == 0 ? 0
           : c == n
               ? num_queries
               : std::int64_t(std::lower_bound(offsets, offsets + num_queries, target) - offsets);
  }

  /// The chunks of a list (`offsets`, `neighbors`; `num_queries` rows among
  /// `num_references`, the entries from offsets[0] = 0); without `windows` (no reference-side
  /// sums) the most the pairs allow, every window empty. With `copy`, the entries are copied
  /// there in the same pass (a record's copy of its list: one read of the entries, not two).
  RowChunks(const std::int64_t* offsets,
            const std::int32_t* neighbors,
            std::int64_t num_queries,
            std::int64_t num_references,
            bool windows = true,
            std::int32_t* copy = nullptr) {
    using Policy = ReversePolicy<exec::host>;
    const std::int64_t pairs = offsets[num_queries];
    int fine = 1; // the most chunks the pairs allow: a power of two
    while (fine * 2 <= Policy::max_row_chunks && pairs / Policy::min_chunk_pairs >= fine * 2) {
      fine *= 2;
    }
    // The windows of the finest split (each chunk's on its own thread); a coarser split's
    // chunks are unions of adjacent fine ones (its boundaries are among the fine ones').
    std::vector<std::int64_t> fine_lo(std::size_t(fine), 0), fine_hi(std::size_t(fine), 0);
#if SPHAD_HAS_OPENMP
#pragma omp parallel for schedule(static, 1) if (fine > 1)
#endif
    for (int c = 0; c < (windows || copy != nullptr ? fine : 0); ++c) {
      const std::int64_t begin = offsets[first_row_of(offsets, num_queries, c, fine)];
      const std::int64_t end = offsets[first_row_of(offsets, num_queries, c + 1, fine)];
      std::int32_t least = std::numeric_limits<std::int32_t>::max(), most = -1;
      // On SIMD lanes (one pass over the entries: 8 instructions a pair as scalar code).
      if (copy != nullptr) {
#if SPHAD_HAS_OPENMP
#pragma omp simd reduction(min : least) reduction(max : most)
#endif
        for (std::int64_t k = begin; k < end; ++k) {
          const std::int32_t j = neighbors[k];
          copy[k] = j;
          least = j < least ? j : least;
          most = j > most ? j : most;
        }
      } else {
#if SPHAD_HAS_OPENMP
#pragma omp simd reduction(min : least) reduction(max : most)
#endif
        for (std::int64_t k = begin; k < end; ++k) {
          const std::int32_t j = neighbors[k]; // (std::min's reference does not vectorize)
          least = j < least ? j : least;
          most = j > most ? j : most;
        }
      }
      if (windows) {
        fine_lo[std::size_t(c)] = most < 0 ? 0 : least;
        fine_hi[std::size_t(c)] = most < 0 ? 0 : std::int64_t(most) + 1;
      }
    }
    const std::int64_t budget =
        Policy::scratch_per_reference * std::max<std::int64_t>(num_references, 1);
    for (count = fine;; count /= 2) {
      const int merge = fine / count;
      lo.assign(std::size_t(count), 0);
      hi.assign(std::size_t(count), 0);
      at.assign(std::size_t(count) + 1, 0);
      for (int c = 0; c < count; ++c) {
        std::int64_t l = std::numeric_limits<std::int64_t>::max(), h = 0;
        for (int f = c * merge; f < (c + 1) * merge; ++f) {
          if (fine_hi[std::size_t(f)] > fine_lo[std::size_t(f)]) {
            l = std::min(l, fine_lo[std::size_t(f)]);
            h = std::max(h, fine_hi[std::size_t(f)]);
          }
        }
        lo[std::size_t(c)] = h > 0 ? l : 0;
        hi[std::size_t(c)] = h > 0 ? h : 0;
        at[std::size_t(c) + 1] = at[std::size_t(c)] + (hi[std::size_t(c)] - lo[std::size_t(c)]);
      }
      if (count == 1 || at[std::size_t(count)] <= budget) {
        break;
      }
    }
    first_row.resize(std::size_t(count) + 1);
    for (int c = 0; c <= count; ++c) {
      first_row[std::size_t(c)] = first_row_of(offsets, num_queries, c, count);
    }
  }

  /// The scratch's size in references (times P scalars).
  std::int64_t references() const {
    return at[std::size_t(count)];
  }

  /// Runs `rows(c)` over the rows of each chunk c (its `rows(first, end)`, serially), the
  /// chunks in parallel.
  template <class MakeRows>
  void for_each(const MakeRows& rows) const {
#if SPHAD_HAS_OPENMP
#pragma omp parallel for schedule(static, 1) if (count > 1)
#endif
    for (int c = 0; c < count; ++c) {
      rows(c).rows(first_row[std::size_t(c)], first_row[std::size_t(c) + 1]);
    }
  }
};

/// What a record keeps of its rows' chunks: on the host the chunks found while copying its list
/// (none when its sweep sums by pair slots), elsewhere nothing.
template <class Exec>
struct RecordedChunks {};
template <>
struct RecordedChunks<exec::host> {
  std::optional<RowChunks> chunks;
};

/// A record's copy of `list` (`num_references` references) and its rows' chunks: on the host,
/// when the sweep sums by chunks (`chunked`), found in the copying pass (`windows`: the
/// references' windows too); else `copy_neighbor_list` alone.
template <class Exec>
std::pair<NeighborList<Exec>, RecordedChunks<Exec>> copy_with_chunks(const Exec& exec,
                                                                     const NeighborList<Exec>& list,
                                                                     std::int64_t num_references,
                                                                     bool chunked,
                                                                     bool windows) {
  RecordedChunks<Exec> recorded;
  if constexpr (std::is_same_v<Exec, exec::host>) {
    if (chunked) {
      auto copy = search::copy_list_with(exec, list, [&](NeighborList<Exec>& out) {
        SPHAD_ASSERT(out.offsets[0] == 0 && out.offsets[out.num_queries] == out.num_pairs);
        recorded.chunks.emplace(out.offsets.data(), list.neighbors.data(), out.num_queries,
                                num_references, windows, out.neighbors.data());
      });
      return {std::move(copy), std::move(recorded)};
    }
  }
  (void)num_references;
  (void)chunked;
  (void)windows;
  return {copy_neighbor_list(exec, list), std::move(recorded)};
}

/// References [first, first + block) sum their adjoints over the chunks whose windows hold
/// them (`ChunkSums`, chunk order) into their targets (at most N).
template <int P, class S, int N>
struct SumChunks {
  const S* sums;
  const RowChunks* chunks;
  std::int64_t num_references;
  GradientTargets<S, N> targets;
  static constexpr std::int64_t block = 1024;
  void operator()(std::int64_t b) const {
    const std::int64_t first = b * block, last = std::min(first + block, num_references);
    // The chunks whose windows meet this block, in chunk order.
    int meeting[ReversePolicy<exec::host>::max_row_chunks];
    int count = 0;
    for (int c = 0; c < chunks->count; ++c) {
      if (chunks->lo[std::size_t(c)] < last && chunks->hi[std::size_t(c)] > first) {
        meeting[count++] = c;
      }
    }
    for (std::int64_t j = first; j < last; ++j) {
      S g[P] = {};
      for (int m = 0; m < count; ++m) {
        const auto c = std::size_t(meeting[m]);
        if (j >= chunks->lo[c] && j < chunks->hi[c]) {
          const S* at = sums + (chunks->at[c] + j - chunks->lo[c]) * P;
          SPHAD_PRAGMA_UNROLL
          for (int l = 0; l < P; ++l) {
            g[l] += at[l];
          }
        }
      }
      targets.add(j, g);
    }
  }
  std::int64_t blocks() const { return (num_references + block - 1) / block; }
};

} // namespace sphad::pairloop
