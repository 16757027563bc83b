// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/exec/scan.hpp>
#include <sphad/kernels/dispatch.hpp>
#include <sphad/search/detail/host_build.hpp>
#include <sphad/search/detail/validate.hpp>
#include <sphad/search/hash_grid.hpp>
#include <sphad/search/points.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

/// \file
/// \brief CSR neighbour lists: for query i, `neighbors[offsets[i], offsets[i+1])`
/// holds the original indices of its reference neighbours, self pairs included.

namespace sphad {

/// A neighbour list in the memory of `Exec`: int64 offsets [Nq + 1] and int32 reference
/// indices [num_pairs], rows in query order, each row in the canonical traversal order of
/// `search::for_each_neighbor`.
///
/// A list also says how it was made, and `apply`, `record` and the Verlet filter check every
/// call against it: `num_references`, the size of the reference set its indices point into,
/// and `scheme`, the support scheme of its search (whose pairs it holds), and `radius`, the
/// largest search radius, skin included. The searches set all three. A hand-made list leaves
/// them unknown (-1): the host then checks its offsets and indices on every call (O(pairs)),
/// and `validate` checks them once and records the reference count (required before a
/// hand-made list is used on CUDA, whose memory the host does not read).
template <class Exec>
struct NeighborList {
  Buffer<std::int64_t, Exec> offsets;
  Buffer<std::int32_t, Exec> neighbors;
  std::int64_t num_queries = 0;
  std::int64_t num_pairs = 0;
  std::int64_t num_references = -1; ///< the reference count it indexes; -1: unknown (hand-made)
  int scheme = -1;                  ///< a `SupportScheme` value; -1: unknown (serves any)
  double radius = -1;               ///< the largest search radius with the skin; -1: unknown
};

/// Knobs of a search that do not change generated code.
template <class T>
struct SearchOptions {
  /// An upper bound of every support of both sets, known on the host (e.g. from the solver's
  /// own bookkeeping). When negative it is computed: a host loop, or on CUDA one device
  /// reduction read back (a synchronization). Giving it keeps a CUDA build at one host read.
  /// A bound below a support would miss pairs and is an error: on the host before any launch,
  /// on CUDA with the read of the list's size (the capacity variant and `build_search_grid`,
  /// which read nothing back on CUDA, cannot report it there).
  T max_support = T(-1);
  /// Extra search distance added to every pair's radius (a Verlet skin); ≥ 0.
  T skin = T(0);
};

namespace search::detail {

/// Flags bad points (how CUDA searches find bad values without reading device memory on the
/// host): bad[0] = 1 for a coordinate that is not finite or beyond ±max/2, or a non-finite or
/// negative support, bad[1] = 1
/// for a support above the caller's `max_support` (< 0: no bound given). Every writer of a flag
/// stores the same value.
template <int D, class T>
struct FlagBadPoints {
  SearchPoints<D, T> points;
  T max_support;
  int* bad;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    const T h = points.supports[i];
    bool ok = h >= T(0) && h - h == T(0); // false for NaN and ±Inf
    for (int a = 0; a < D; ++a) {
      ok = ok && coordinate_in_range(points.positions[i][a]);
    }
    if (!ok) {
      bad[0] = 1;
    }
    if (max_support >= T(0) && h > max_support) {
      bad[1] = 1;
    }
  }
};

/// Counts (pass 1) or writes (pass 2) the neighbours of each query through the grid. Queries
/// are visited in cell order (`order`), so neighbouring queries read the same cells while they
/// are in cache; each writes only its own row, so the result does not depend on the order.
template <SupportScheme S, int D, class T>
struct CountNeighbors {
  HashGridView<D, T> grid;
  SearchPoints<D, T> queries;
  const std::int32_t* order;
  T skin;
  std::int64_t* counts;
  SPHAD_HOST_DEVICE void operator()(std::int64_t s) const {
    const std::int32_t i = order[s];
    std::int64_t count = 0;
    for_each_neighbor<S>(grid, queries.positions[i], queries.supports[i], skin,
                         [&](std::int32_t) { ++count; });
    counts[i] = count;
  }
};

template <SupportScheme S, int D, class T>
struct WriteNeighbors {
  HashGridView<D, T> grid;
  SearchPoints<D, T> queries;
  const std::int32_t* order;
  T skin;
  const std::int64_t* offsets;
  std::int32_t* neighbors;
  std::int64_t capacity; // rows that would pass it are skipped (capacity variant)
  SPHAD_HOST_DEVICE void operator()(std::int64_t s) const {
    const std::int32_t i = order[s];
    std::int64_t at = offsets[i];
    if (offsets[i + 1] > capacity) {
      return;
    }
    for_each_neighbor<S>(grid, queries.positions[i], queries.supports[i], skin,
                         [&](std::int32_t j) { neighbors[at++] = j; });
  }
};

/// status[0] = offsets[n] (the total), status[1, 2] = the bad-input flags; read back together.
struct PackStatus {
  const std::int64_t* offsets;
  std::int64_t n;
  const int* bad_input;
  std::int64_t* status;
  SPHAD_HOST_DEVICE void operator()(std::int64_t) const {
    status[0] = offsets[n];
    status[1] = bad_input[0];
    status[2] = bad_input[1];
  }
};

struct SetOverflow {
  const std::int64_t* offsets;
  std::int64_t n, capacity;
  int* overflow;
  SPHAD_HOST_DEVICE void operator()(std::int64_t) const {
    *overflow = offsets[n] > capacity ? 1 : 0;
  }
};

/// The queries' indices sorted by the grid cell they fall in (stable): `data()`. When the
/// queries are the references the grid sorted (the same positions), the grid's own sorted
/// indices (the same order), not sorted again.
template <class Exec>
struct QueryOrder {
  Buffer<std::int32_t, Exec> own; // empty when the grid's order serves
  const std::int32_t* order;
  const std::int32_t* data() const { return order; }
};
template <int D, class T, class Exec>
QueryOrder<Exec> query_order(const Exec& exec,
                             const HashGrid<D, T, Exec>& grid,
                             const SearchPoints<D, T>& queries,
                             const SearchPoints<D, T>& references) {
  const std::int64_t nq = queries.size();
  if (nq == references.size() && queries.positions.data() == references.positions.data()) {
    return {Buffer<std::int32_t, Exec>(), grid.sorted_index.data()};
  }
  Buffer<std::int32_t, Exec> order(exec, nq);
  Buffer<std::uint64_t, Exec> keys(exec, nq);
  exec::for_each_index(
      exec, nq, CellKeys<D, T>{grid.layout, queries.positions.data(), keys.data(), order.data()});
  exec::stable_sort_by_key(exec, keys.data(), order.data(), nq, cell_key_bits(grid.layout));
  const std::int32_t* at = order.data();
  return {std::move(order), at};
}

/// Validation shared by every entry point; returns the grid radius.
template <SupportScheme S, int D, class T, class Exec>
T validate_search(const Exec& exec,
                  const SearchPoints<D, T>& queries,
                  const SearchPoints<D, T>& references,
                  const Domain<D, T>& domain,
                  const SearchOptions<T>& options,
                  const char* function) {
  validate_sizes(queries, function, "queries");
  validate_sizes(references, function, "references");
  validate_domain(domain, function, "domain");
  SPHAD_REQUIRE(std::isfinite(options.skin) && options.skin >= T(0), function, "options.skin",
                sphad::detail::concat("must be finite and >= 0 (got ", options.skin, ")"));
  SPHAD_REQUIRE(!(options.max_support >= T(0)) || std::isfinite(options.max_support), function,
                "options.max_support",
                sphad::detail::concat("must be finite (got ", options.max_support, ")"));
  validate_values(exec, queries, options.max_support, function, "queries");
  validate_values(exec, references, options.max_support, function, "references");
  const T h_q = largest_support(exec, queries, options.max_support);
  const T h_r = largest_support(exec, references, options.max_support);
  // On CUDA an infinite support shows first here (NaN is flagged by the count pass).
  SPHAD_REQUIRE(std::isfinite(h_q), function, "queries", "has a non-finite support");
  SPHAD_REQUIRE(std::isfinite(h_r), function, "references", "has a non-finite support");
  const T radius = max_search_radius<S>(h_q, h_r) + options.skin;
  validate_periodic_radius(domain, std::fmax(h_q, h_r) + options.skin, function);
  return radius;
}

/// Pass 1 and the scan: offsets[0, nq] from per-query counts (offsets doubles as the count
/// array, the last entry 0 so the scan leaves the total in offsets[nq]).
template <SupportScheme S, int D, class T, class Exec>
void count_and_scan(const Exec& exec,
                    const HashGrid<D, T, Exec>& grid,
                    const SearchPoints<D, T>& queries,
                    const SearchPoints<D, T>& references,
                    const std::int32_t* order,
                    T skin,
                    T max_support,
                    std::int64_t* offsets,
                    int* bad_input) {
  const std::int64_t nq = queries.size();
  exec::fill(exec, bad_input, 2, 0);
  exec::for_each_index(exec, nq, FlagBadPoints<D, T>{queries, max_support, bad_input});
  exec::for_each_index(exec, references.size(),
                       FlagBadPoints<D, T>{references, max_support, bad_input});
  exec::fill(exec, offsets + nq, 1, std::int64_t(0));
  exec::for_each_index(exec, nq,
                       CountNeighbors<S, D, T>{grid.view(), queries, order, skin, offsets});
  exec::exclusive_scan(exec, offsets, offsets, nq + 1);
}

} // namespace search::detail

namespace search {
/// The grid `build_neighbor_list` searches: over `references`, cells as wide as the largest
/// search radius of scheme S (plus the skin). Operators that traverse the grid instead of a
/// list build it with this, so both visit the same pairs in the same order.
/// Validates like `build_neighbor_list`.
template <SupportScheme S, int D, class T, class Exec>
HashGrid<D, T, Exec> build_search_grid(const Exec& exec,
                                       const SearchPoints<D, T>& queries,
                                       const SearchPoints<D, T>& references,
                                       const Domain<D, T>& domain,
                                       const SearchOptions<T>& options = {},
                                       const char* function = "build_search_grid") {
  const T radius = detail::validate_search<S>(exec, queries, references, domain, options, function);
  return build_hash_grid(exec, references, domain, radius);
}
} // namespace search

namespace search::detail {
/// What a list build may keep between builds (`NeighborCache`): the search grid's memory and
/// its build's scratch, and the host's per-chunk row arrays. A build over it that has the sizes
/// of the last allocates nothing on the host; the list it returns keeps room (its neighbours'
/// array may be longer than its pairs).
template <int D, class T, class Exec>
struct BuildScratch {
  HashGrid<D, T, Exec> grid{};
  GridScratch<Exec> grid_scratch;
  RowScratch rows; ///< the host's
};

/// `build_neighbor_list` written over the memory of `recycled` (a list no longer needed; its
/// arrays taken only after every check has passed) and of `kept` (null for none), errors named
/// after `function`.
template <SupportScheme S, int D, class T, class Exec>
NeighborList<Exec> build_list(const Exec& exec,
                              const SearchPoints<D, T>& queries,
                              const SearchPoints<D, T>& references,
                              const Domain<D, T>& domain,
                              const SearchOptions<T>& options,
                              NeighborList<Exec>&& recycled,
                              const char* function,
                              BuildScratch<D, T, Exec>* kept = nullptr) {
  const T radius = validate_search<S>(exec, queries, references, domain, options, function);
  BuildScratch<D, T, Exec> fresh;
  BuildScratch<D, T, Exec>& scratch = kept != nullptr ? *kept : fresh;
  scratch.grid = build_hash_grid_over(exec, references, domain, radius, std::move(scratch.grid),
                                      scratch.grid_scratch);
  const HashGrid<D, T, Exec>& grid = scratch.grid;
  const std::int64_t nq = queries.size();
  NeighborList<Exec> list{Buffer<std::int64_t, Exec>(), Buffer<std::int32_t, Exec>(), nq, 0};
  list.num_references = references.size();
  list.scheme = static_cast<int>(S);
  list.radius = double(grid.radius);
  if constexpr (std::is_same_v<Exec, exec::host>) {
    // The host has checked every value already (`validate_search`): one pass, no read back;
    // the queries in their own order when they lie clustered, else in the grid's cell order.
    const bool own_order = recycled.neighbors.size() > 0 &&
                           search::detail::queries_are_clustered(grid.layout, queries);
    const auto order = own_order ? search::detail::QueryOrder<Exec>{{}, nullptr}
                                 : search::detail::query_order(exec, grid, queries, references);
    list.offsets = sphad::detail::recycle(exec, std::move(recycled.offsets), nq + 1);
    list.neighbors = search::detail::build_rows_once<S>(
        exec, grid, queries, order.data(), options.skin, list.offsets.data(),
        std::move(recycled.neighbors), recycled.num_pairs,
        kept != nullptr ? &scratch.rows : nullptr);
    list.num_pairs = list.offsets[nq];
    return list;
  }
  const auto order = search::detail::query_order(exec, grid, queries, references);
  // CUDA checks the values with its count: `recycled` is left as it is until they pass (the
  // device's pool keeps freed memory, the offsets are not worth keeping)
  list.offsets = Buffer<std::int64_t, Exec>(exec, nq + 1);
  Buffer<int, Exec> bad_input(exec, 2);
  search::detail::count_and_scan<S>(exec, grid, queries, references, order.data(), options.skin,
                                    options.max_support, list.offsets.data(), bad_input.data());
  Buffer<std::int64_t, Exec> status(exec, 3);
  exec::for_each_index(
      exec, 1,
      search::detail::PackStatus{list.offsets.data(), nq, bad_input.data(), status.data()});
  // host sync: the build's one read (the total, with the bad-input flags)
  const auto host_status = exec::to_host(exec, status.data(), 3);
  SPHAD_REQUIRE(host_status[1] == 0, function, "queries",
                "or `references` has a non-finite position (or one beyond half the largest "
                "float), or a non-finite or negative support");
  SPHAD_REQUIRE(host_status[2] == 0, function, "options.max_support",
                sphad::detail::concat("is below a support of `queries` or `references` (got ",
                                      options.max_support, "): pairs would be missed"));
  list.num_pairs = host_status[0];
  list.neighbors = sphad::detail::recycle(exec, std::move(recycled.neighbors), list.num_pairs);
  exec::for_each_index(exec, nq,
                       search::detail::WriteNeighbors<S, D, T>{
                           grid.view(), queries, order.data(), options.skin, list.offsets.data(),
                           list.neighbors.data(), list.num_pairs});
  return list;
}

} // namespace search::detail

/// Builds the neighbour list of `queries` among `references` under support scheme S: j is a
/// neighbour of i when |x_i − x_j| ≤ h_ij (+ skin), the minimum image on periodic axes, self
/// pairs included. Queries and references may be the same set (pass the same view
/// twice). On the host one pass over a grid of the references (each thread's rows into its own
/// buffer, then copied into place); on CUDA two: count, scan, one host read of the total
/// (together with a flag for non-finite inputs found on the device), fill.
/// Deterministic: the same input gives the same arrays.
/// Throws `InvalidArgument` (before any launch, from host metadata) for mismatched sizes,
/// non-finite or inverted domain bounds or an extent that overflows, a search radius ≥ L/2 on
/// a periodic axis, bad options; on the host also for non-finite positions or supports,
/// negative supports and supports above `options.max_support` (CUDA reports those after its
/// count pass). Empty sets give an empty or all-zero-count list.
template <SupportScheme S, int D, class T, class Exec>
NeighborList<Exec> build_neighbor_list(const Exec& exec,
                                       const SearchPoints<D, T>& queries,
                                       const SearchPoints<D, T>& references,
                                       const Domain<D, T>& domain,
                                       const SearchOptions<T>& options = {}) {
  return search::detail::build_list<S>(exec, queries, references, domain, options, {},
                                       "build_neighbor_list");
}

/// `build_neighbor_list` into `list`, over its memory: `list` (a previous step's list, no longer
/// needed) is replaced by the neighbour list of these points, bit for bit the list
/// `build_neighbor_list` returns. On the host its arrays are resized in place and written over,
/// so a list of about the same size takes no fresh pages — at 10⁶ particles in 2D the first
/// writes to a fresh 200 MB list were half a build (docs/performance.md); on CUDA the neighbours'
/// array is kept when its size matches (the offsets are new: the count pass writes them before
/// its input checks). Throws as `build_neighbor_list` does, before `list` changes.
template <SupportScheme S, int D, class T, class Exec>
void rebuild_neighbor_list(const Exec& exec,
                           NeighborList<Exec>& list,
                           const SearchPoints<D, T>& queries,
                           const SearchPoints<D, T>& references,
                           const Domain<D, T>& domain,
                           const SearchOptions<T>& options = {}) {
  list = search::detail::build_list<S>(exec, queries, references, domain, options, std::move(list),
                                       "rebuild_neighbor_list");
}

/// The same with the scheme chosen at run time (dispatched once).
template <int D, class T, class Exec>
NeighborList<Exec> build_neighbor_list(const Exec& exec,
                                       const SearchPoints<D, T>& queries,
                                       const SearchPoints<D, T>& references,
                                       const Domain<D, T>& domain,
                                       SupportScheme scheme,
                                       const SearchOptions<T>& options = {}) {
  return kernels::dispatch(scheme, [&](auto s) {
    return build_neighbor_list<decltype(s)::value>(exec, queries, references, domain, options);
  });
}

/// The capacity variant for CUDA graphs: no host read and no allocation sized by the data.
/// Writes offsets [Nq + 1] and up to `capacity` neighbours into caller memory and sets
/// `*overflow` (device memory, an int) to 1 when the list needs more than `capacity` entries
/// (rows past the capacity are then not written; offsets are complete, so offsets[Nq] is the
/// size needed), else 0. Needs `options.max_support` (≥ 0): the grid is laid out from host
/// metadata only. On CUDA, non-finite inputs and supports above `options.max_support` are not
/// reported (nothing is read back).
template <SupportScheme S, int D, class T, class Exec>
void build_neighbor_list_into(const Exec& exec,
                              const SearchPoints<D, T>& queries,
                              const SearchPoints<D, T>& references,
                              const Domain<D, T>& domain,
                              const SearchOptions<T>& options,
                              std::int64_t* offsets,
                              std::int32_t* neighbors,
                              std::int64_t capacity,
                              int* overflow) {
  constexpr const char* function = "build_neighbor_list_into";
  SPHAD_REQUIRE(options.max_support >= T(0), function, "options.max_support",
                sphad::detail::concat("is required (>= 0) without host reads (got ",
                                      options.max_support, ")"));
  SPHAD_REQUIRE(capacity >= 0, function, "capacity",
                sphad::detail::concat("negative (got ", capacity, ")"));
  const auto grid =
      search::build_search_grid<S>(exec, queries, references, domain, options, function);
  Buffer<int, Exec> bad_input(exec, 2);
  const auto order = search::detail::query_order(exec, grid, queries, references);
  search::detail::count_and_scan<S>(exec, grid, queries, references, order.data(), options.skin,
                                    options.max_support, offsets, bad_input.data());
  const std::int64_t nq = queries.size();
  exec::for_each_index(exec, 1, search::detail::SetOverflow{offsets, nq, capacity, overflow});
  exec::for_each_index(exec, nq,
                       search::detail::WriteNeighbors<S, D, T>{grid.view(), queries, order.data(),
                                                               options.skin, offsets, neighbors,
                                                               capacity});
}

} // namespace sphad
