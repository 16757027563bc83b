// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/exec/sort.hpp>
#include <sphad/search/neighbor_list.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

/// \file
/// \brief The transpose of a neighbour list: for each reference, the queries that have it as a
/// neighbour. Reverse mode gathers the reference particles' adjoints over it (no atomics, so
/// the gradients are bitwise reproducible, architecture §3).

namespace sphad {

namespace search::detail {

/// rows[k] = i for every entry k of row i.
struct RowOfEntry {
  const std::int64_t* offsets;
  std::int32_t* rows;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i) const {
    for (std::int64_t k = offsets[i]; k < offsets[i + 1]; ++k) {
      rows[k] = std::int32_t(i);
    }
  }
};

/// offsets[j] = the first entry whose sorted key is ≥ j (binary search).
struct FirstEntryOf {
  const std::int32_t* sorted_keys;
  std::int64_t n;
  std::int64_t* offsets;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t j) const {
    std::int64_t lo = 0, hi = n;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (sorted_keys[mid] < j) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    offsets[j] = lo;
  }
};

} // namespace search::detail

/// A copy of `list` (stream-ordered, no synchronization).
template <class Exec>
NeighborList<Exec> copy_neighbor_list(const Exec& exec, const NeighborList<Exec>& list) {
  NeighborList<Exec> out{Buffer<std::int64_t, Exec>(exec, list.num_queries + 1),
                         Buffer<std::int32_t, Exec>(exec, list.num_pairs), list.num_queries,
                         list.num_pairs};
  exec::copy(exec, list.offsets.data(), out.offsets.data(), list.num_queries + 1);
  exec::copy(exec, list.neighbors.data(), out.neighbors.data(), list.num_pairs);
  return out;
}

/// The transpose of `list` over `num_references` references: row j holds, in increasing order,
/// every query i whose row in `list` contains j (once per occurrence). Deterministic: on the
/// host a counting sort (one serial pass, 4× faster than the radix sort), on CUDA a stable
/// radix sort of the entries by reference; allocates stream-ordered and never synchronizes (the
/// size is `list.num_pairs`). Throws `InvalidArgument` for a negative `num_references`.
template <class Exec>
NeighborList<Exec> transpose_neighbor_list(const Exec& exec,
                                           const NeighborList<Exec>& list,
                                           std::int64_t num_references) {
  SPHAD_REQUIRE(num_references >= 0, "transpose_neighbor_list", "num_references",
                sphad::detail::concat("is negative (", num_references, ")"));
  const std::int64_t pairs = list.num_pairs;
  NeighborList<Exec> out{Buffer<std::int64_t, Exec>(exec, num_references + 1),
                         Buffer<std::int32_t, Exec>(exec, pairs), num_references, pairs};
  if constexpr (std::is_same_v<Exec, exec::host>) {
    std::int64_t* offsets = out.offsets.data();
    std::fill(offsets, offsets + num_references + 1, std::int64_t(0));
    const std::int32_t* neighbors = list.neighbors.data();
    for (std::int64_t k = 0; k < pairs; ++k) {
      ++offsets[neighbors[k] + 1];
    }
    for (std::int64_t j = 0; j < num_references; ++j) {
      offsets[j + 1] += offsets[j];
    }
    // Rows filled in query order: each reference's queries come out increasing. The cursor of
    // row j is offsets[j], restored by the shift below.
    for (std::int64_t i = 0; i < list.num_queries; ++i) {
      for (std::int64_t k = list.offsets[i]; k < list.offsets[i + 1]; ++k) {
        out.neighbors[offsets[neighbors[k]]++] = std::int32_t(i);
      }
    }
    for (std::int64_t j = num_references; j > 0; --j) {
      offsets[j] = offsets[j - 1];
    }
    offsets[0] = 0;
  } else {
    Buffer<std::int32_t, Exec> keys(exec, pairs);
    exec::copy(exec, list.neighbors.data(), keys.data(), pairs);
    exec::for_each_index(exec, list.num_queries,
                         search::detail::RowOfEntry{list.offsets.data(), out.neighbors.data()});
    exec::stable_sort_by_key(exec, keys.data(), out.neighbors.data(), pairs);
    exec::for_each_index(exec, num_references + 1,
                         search::detail::FirstEntryOf{keys.data(), pairs, out.offsets.data()});
  }
  return out;
}

} // namespace sphad
