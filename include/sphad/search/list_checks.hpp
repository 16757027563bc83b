// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/search/neighbor_list.hpp>
#include <sphad/search/support_radius.hpp>

#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#include <sphad/exec/cuda.hpp>
#endif

/// \file
/// \brief Checks that a neighbour list can serve a call: its shape from host metadata (O(1)),
/// its offsets and indices on the device that holds them (O(pairs), `validate`).

namespace sphad {
namespace search::detail {

/// Flags, per query row, what would make a traversal read out of bounds: bad[0] offsets that
/// do not start at 0, decrease, or end away from `num_pairs`; bad[1] an index outside
/// [0, num_references). Every writer of a flag stores the same value.
struct FlagBadRows {
  const std::int64_t* offsets;
  const std::int32_t* neighbors;
  std::int64_t num_queries, num_pairs, num_references;
  int* bad;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    const std::int64_t begin = offsets[i], end = offsets[i + 1];
    const bool ordered = (i > 0 || begin == 0) && begin <= end && begin >= 0 && end <= num_pairs &&
                         (i + 1 < num_queries || end == num_pairs);
    if (!ordered) {
      bad[0] = 1;
      return;
    }
    for (std::int64_t k = begin; k < end; ++k) {
      if (neighbors[k] < 0 || neighbors[k] >= num_references) {
        bad[1] = 1;
      }
    }
  }
};

/// The list's shape from host metadata: counts ≥ 0, buffers as long as the counts say, rows for
/// `num_queries` queries and, when it knows them, indices into `num_references` references.
template <class Exec>
void check_list_shape(const NeighborList<Exec>& list,
                      std::int64_t num_queries,
                      std::int64_t num_references,
                      const char* function,
                      const char* name) {
  using sphad::detail::concat;
  SPHAD_REQUIRE(list.num_queries == num_queries, function, name,
                concat("has ", list.num_queries, " rows for ", num_queries, " queries"));
  SPHAD_REQUIRE(list.num_pairs >= 0, function, name,
                concat("has a negative num_pairs (got ", list.num_pairs, ")"));
  SPHAD_REQUIRE(num_queries > 0 || list.num_pairs == 0, function, name,
                concat("has no rows but num_pairs ", list.num_pairs));
  SPHAD_REQUIRE(list.offsets.size() == num_queries + 1 || (num_queries == 0 && list.num_pairs == 0),
                function, name,
                concat("has ", list.offsets.size(), " offsets for ", num_queries,
                       " queries (needs num_queries + 1)"));
  SPHAD_REQUIRE(
      list.neighbors.size() >= list.num_pairs, function, name,
      concat("has ", list.neighbors.size(), " neighbour entries but num_pairs ", list.num_pairs));
  SPHAD_REQUIRE(list.num_references < 0 || list.num_references == num_references, function, name,
                concat("was built for ", list.num_references, " references but the call has ",
                       num_references, " (rebuild it after particles are added or removed)"));
}

} // namespace search::detail

namespace search {
/// Throws naming `name` unless a list searched under `list_scheme` (−1: unknown, serves any)
/// holds every pair scheme S needs; `who` says whose scheme S is ("the operator's", "the").
template <SupportScheme S>
void check_list_scheme(int list_scheme, const char* function, const char* name, const char* who) {
  SPHAD_REQUIRE(
      list_scheme < 0 || search::search_covers(list_scheme, S), function, name,
      sphad::detail::concat("was built for the ", search::support_scheme_name(list_scheme),
                            " support scheme, which misses pairs ", who, " ",
                            search::support_scheme_name(int(S)), " scheme needs (build it with ",
                            search::support_scheme_name(int(S)), " or SuperSymmetric)"));
}

} // namespace search

namespace search::detail {
/// The offsets and indices of a list of the right shape, read on the device that holds them:
/// one pass over the pairs and one host read of two flags (a synchronization on CUDA).
template <class Exec>
void check_list_entries(const Exec& exec,
                        const NeighborList<Exec>& list,
                        std::int64_t num_references,
                        const char* function,
                        const char* name) {
  if (list.num_queries == 0) {
    return;
  }
  Buffer<int, Exec> bad(exec, 2);
  exec::fill(exec, bad.data(), 2, 0);
  exec::for_each_index(exec, list.num_queries,
                       FlagBadRows{list.offsets.data(), list.neighbors.data(), list.num_queries,
                                   list.num_pairs, num_references, bad.data()});
  // host sync: validation of a hand-made list reads its two flags back
  const auto flags = exec::to_host(exec, bad.data(), 2);
  SPHAD_REQUIRE(flags[0] == 0, function, name,
                sphad::detail::concat("has offsets that do not rise from 0 to num_pairs (",
                                      list.num_pairs, ")"));
  SPHAD_REQUIRE(flags[1] == 0, function, name,
                sphad::detail::concat("has a neighbour index outside [0, ", num_references, ")"));
}

} // namespace search::detail

namespace search {
/// Everything a call checks of a list it is handed for `num_queries` queries over
/// `num_references` references, a failure naming `name` of `function`: the shape always; the
/// entries of a hand-made list (unknown reference count) on the host on every call, while CUDA
/// requires such a list to have been checked by `validate` (its memory is not read on the host).
/// For code that takes lists the way the library's calls do (the operator engine, a user's own
/// pair loop).
template <class Exec>
void check_list(const Exec& exec,
                const NeighborList<Exec>& list,
                std::int64_t num_queries,
                std::int64_t num_references,
                const char* function,
                const char* name) {
  detail::check_list_shape(list, num_queries, num_references, function, name);
  if (list.num_references < 0) {
    if constexpr (std::is_same_v<Exec, exec::host>) {
      detail::check_list_entries(exec, list, num_references, function, name);
    } else {
      SPHAD_REQUIRE(false, function, name,
                    "is a hand-made list (num_references unknown): check it once with "
                    "sphad::validate(exec, list, num_references) before using it on a device");
    }
  }
}

} // namespace search

/// Checks a hand-made neighbour list against the reference set it indexes and records
/// `num_references` in it: offsets [num_queries + 1] rising from 0 to `num_pairs`, every index in
/// [0, num_references). One pass over the pairs on the device that holds them and one host read
/// (synchronizes on CUDA). Throws `InvalidArgument` naming `list` and the problem; the list is
/// modified only when it passes. The searches' lists need no call: they are checked as built.
template <class Exec>
void validate(const Exec& exec, NeighborList<Exec>& list, std::int64_t num_references) {
  constexpr const char* function = "validate";
  SPHAD_REQUIRE(num_references >= 0 && num_references <= 0x7fffffff, function, "num_references",
                sphad::detail::concat("must be in [0, 2^31) (got ", num_references, ")"));
  SPHAD_REQUIRE(list.num_queries >= 0, function, "list",
                sphad::detail::concat("has a negative num_queries (got ", list.num_queries, ")"));
  search::detail::check_list_shape(list, list.num_queries, num_references, function, "list");
  search::detail::check_list_entries(exec, list, num_references, function, "list");
  list.num_references = num_references;
}

} // namespace sphad
