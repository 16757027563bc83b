// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/group.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/search/list_checks.hpp>
#include <sphad/search/neighbor_list.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

/// \file
/// \brief The transpose of a neighbour list: for each reference, the queries that have it as a
/// neighbour. Reverse mode gathers the reference particles' adjoints over it (no atomics, so
/// the gradients are bitwise reproducible).

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

/// out[t] = rows[entries[t]].
struct RowsInOrder {
  const std::int32_t* rows;
  const std::int64_t* entries;
  std::int32_t* out;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t t) const {
    out[t] = rows[entries[t]];
  }
};

/// Checks a list handed to a transpose: counts and buffers consistent (O(1)); for a hand-made
/// list also its offsets and indices (O(pairs) on the host; CUDA needs `validate` first).
template <class Exec>
void check_transposable(const Exec& exec,
                        const NeighborList<Exec>& list,
                        std::int64_t num_references,
                        const char* function) {
  SPHAD_REQUIRE(num_references >= 0, function, "num_references",
                sphad::detail::concat("is negative (", num_references, ")"));
  SPHAD_REQUIRE(list.num_references < 0 || list.num_references == num_references, function,
                "num_references",
                sphad::detail::concat("is ", num_references, " but the list was built for ",
                                      list.num_references, " references"));
  SPHAD_REQUIRE(list.num_queries >= 0, function, "list",
                sphad::detail::concat("has a negative num_queries (got ", list.num_queries, ")"));
  check_list(exec, list, list.num_queries, num_references, function, "list");
}

} // namespace search::detail

namespace search {
/// `copy_neighbor_list` with the entries copied by `copy_entries(out)` (the checks, counts and
/// offsets as there): for a copy that reorders or filters the entries on the way.
template <class Exec, class CopyEntries>
NeighborList<Exec>
copy_list_with(const Exec& exec, const NeighborList<Exec>& list, const CopyEntries& copy_entries) {
  constexpr const char* function = "copy_neighbor_list";
  SPHAD_REQUIRE(list.num_queries >= 0, function, "list",
                sphad::detail::concat("has a negative num_queries (got ", list.num_queries, ")"));
  detail::check_list_shape(list, list.num_queries, list.num_references, function, "list");
  NeighborList<Exec> out{Buffer<std::int64_t, Exec>(exec, list.num_queries + 1),
                         Buffer<std::int32_t, Exec>(exec, list.num_pairs), list.num_queries,
                         list.num_pairs};
  out.num_references = list.num_references;
  out.scheme = list.scheme;
  out.radius = list.radius;
  if (list.offsets.size() == 0) {
    exec::fill(exec, out.offsets.data(), 1, std::int64_t(0));
  } else {
    exec::copy(exec, list.offsets.data(), out.offsets.data(), list.num_queries + 1);
  }
  copy_entries(out);
  return out;
}
} // namespace search

/// A copy of `list` (stream-ordered, no synchronization). A list for no queries may come
/// without offsets; its copy has the one offset, 0. Throws `InvalidArgument` when the counts and
/// buffers disagree (the entries themselves are copied as they are, not checked).
template <class Exec>
NeighborList<Exec> copy_neighbor_list(const Exec& exec, const NeighborList<Exec>& list) {
  return search::copy_list_with(exec, list, [&](NeighborList<Exec>& out) {
    exec::copy(exec, list.neighbors.data(), out.neighbors.data(), list.num_pairs);
  });
}

/// A list's entries grouped by reference: entries[offsets[j] .. offsets[j + 1]) are, in
/// increasing order, the entries k (pair indices into the list) whose neighbour is j. Reverse
/// mode gathers each reference's per-pair adjoints over it (no atomics: bitwise reproducible).
template <class Exec>
struct EntryTranspose {
  Buffer<std::int64_t, Exec> offsets; ///< [num_references + 1]
  Buffer<std::int64_t, Exec> entries; ///< [num_pairs]
  std::int64_t num_references = 0;
  std::int64_t num_pairs = 0;
};

namespace search {
/// The entries grouped by reference of a list the caller has checked (`check_list`): as
/// `transpose_entries` without its checks.
template <class Exec>
EntryTranspose<Exec>
group_entries(const Exec& exec, const NeighborList<Exec>& list, std::int64_t num_references) {
  EntryTranspose<Exec> out{Buffer<std::int64_t, Exec>(exec, num_references + 1),
                           Buffer<std::int64_t, Exec>(exec, list.num_pairs), num_references,
                           list.num_pairs};
  exec::group_by_key(exec, list.neighbors.data(), list.num_pairs, num_references,
                     out.offsets.data(), out.entries.data());
  return out;
}
} // namespace search

/// The `EntryTranspose` of `list` over `num_references` references. Deterministic and
/// independent of the thread count; allocates stream-ordered and never synchronizes. Throws
/// `InvalidArgument` for a negative `num_references`, one the list was not built for, or a
/// list whose counts and buffers disagree; a hand-made list's entries are checked as every
/// call checks them (on CUDA it must have passed `validate`).
template <class Exec>
EntryTranspose<Exec>
transpose_entries(const Exec& exec, const NeighborList<Exec>& list, std::int64_t num_references) {
  search::detail::check_transposable(exec, list, num_references, "transpose_entries");
  return search::group_entries(exec, list, num_references);
}

/// The transpose of `list` over `num_references` references: row j holds, in increasing order,
/// every query i whose row in `list` contains j (once per occurrence). Deterministic (a counting
/// sort on the host, a stable radix sort on CUDA); allocates stream-ordered and never
/// synchronizes (the size is `list.num_pairs`). Throws `InvalidArgument` as `transpose_entries`
/// does.
template <class Exec>
NeighborList<Exec> transpose_neighbor_list(const Exec& exec,
                                           const NeighborList<Exec>& list,
                                           std::int64_t num_references) {
  search::detail::check_transposable(exec, list, num_references, "transpose_neighbor_list");
  EntryTranspose<Exec> grouped = search::group_entries(exec, list, num_references);
  NeighborList<Exec> out{std::move(grouped.offsets),
                         Buffer<std::int32_t, Exec>(exec, list.num_pairs), num_references,
                         list.num_pairs};
  // Its rows are the references and its entries the queries: Gather and Scatter swap roles.
  out.num_references = list.num_queries;
  out.scheme = list.scheme == int(SupportScheme::Gather)    ? int(SupportScheme::Scatter)
               : list.scheme == int(SupportScheme::Scatter) ? int(SupportScheme::Gather)
                                                            : list.scheme;
  out.radius = list.radius;
  Buffer<std::int32_t, Exec> rows(exec, list.num_pairs);
  exec::for_each_index(exec, list.num_queries,
                       search::detail::RowOfEntry{list.offsets.data(), rows.data()});
  exec::for_each_index(
      exec, list.num_pairs,
      search::detail::RowsInOrder{rows.data(), grouped.entries.data(), out.neighbors.data()});
  return out;
}

} // namespace sphad
