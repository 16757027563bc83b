// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/exec/reduce.hpp>
#include <sphad/exec/scan.hpp>
#include <sphad/search/list_checks.hpp>
#include <sphad/search/neighbor_list.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

/// \file
/// \brief Verlet lists: a list built with a skin, kept while no pair can have
/// entered the support since, and filtered down to the exact radius between rebuilds.

namespace sphad {

/// A neighbour list built with every radius enlarged by `skin`, with the positions and
/// supports it was built from (copies in the memory of `Exec`) and the domain it was built over.
template <int D, class T, class Exec>
struct VerletList {
  NeighborList<Exec> list; ///< pairs within radius + skin at build time
  T skin;
  Buffer<Vec<T, D>, Exec> query_positions, reference_positions;
  Buffer<T, Exec> query_supports, reference_supports;
  Domain<D, T> domain; ///< the domain of the build: its periodic axes decide which pairs exist
};

namespace search::detail {
/// Whether two domains give the same pairs to the same particles: the same periodic axes, with
/// the same bounds on each (the bounds of an open axis play no part in a search).
template <int D, class T>
bool same_pair_geometry(const Domain<D, T>& a, const Domain<D, T>& b) {
  for (int axis = 0; axis < D; ++axis) {
    if (a.periodic[axis] != b.periodic[axis] ||
        (a.periodic[axis] && (a.min[axis] != b.min[axis] || a.max[axis] != b.max[axis]))) {
      return false;
    }
  }
  return true;
}

/// Per point: its minimum-image displacement since the build (NaN for a NaN position), or +∞
/// when its support grew or is NaN.
template <int D, class T>
struct Drift {
  Domain<D, T> domain;
  SearchPoints<D, T> now;
  const Vec<T, D>* then_positions;
  const T* then_supports;
  T* drift;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    using std::sqrt;
    // A grown support, or a NaN one, counts as a move past the skin (a rebuild, whose search
    // reports a non-finite value).
    const T grown = !(now.supports[i] <= then_supports[i]) ? T(INFINITY) : T(0);
    drift[i] = grown + sqrt(norm_squared(domain.difference(now.positions[i], then_positions[i])));
  }
};

/// Scratch the list upkeep keeps between calls (`NeighborCache`): per-point drifts, wrapped
/// positions, one reduction's result, the refilter's kept pairs at the Verlet list's offsets.
template <int D, class T, class Exec>
struct UpkeepScratch {
  Buffer<T, Exec> drift;
  Buffer<Vec<T, D>, Exec> query_wrapped, reference_wrapped;
  Buffer<T, Exec> sum;
  Buffer<std::int32_t, Exec> kept;
  BuildScratch<D, T, Exec> build; ///< the rebuilds' grid and rows
};

template <class Exec, int D, class T>
T max_drift(const Exec& exec,
            const Domain<D, T>& domain,
            const SearchPoints<D, T>& now,
            const Buffer<Vec<T, D>, Exec>& then_positions,
            const Buffer<T, Exec>& then_supports,
            Buffer<T, Exec>& scratch) {
  Buffer<T, Exec>& drift = sized(exec, scratch, now.size());
  exec::for_each_index(
      exec, now.size(),
      Drift<D, T>{domain, now, then_positions.data(), then_supports.data(), drift.data()});
  // host sync: the Verlet check's one reduction per set
  return exec::reduce_max(exec, drift.data(), now.size(), T(0));
}

/// A copy of data[0, n), in the memory of `recycled` (a buffer no longer needed) where it can be.
template <class T, class Exec>
Buffer<T, Exec>
copy_of(const Exec& exec, const T* data, std::int64_t n, Buffer<T, Exec>&& recycled = {}) {
  Buffer<T, Exec> out = sphad::detail::recycle(exec, std::move(recycled), n);
  exec::copy(exec, data, out.data(), n);
  return out;
}

/// Positions wrapped into the box on periodic axes, once per point instead of once per pair.
template <int D, class T>
struct WrapPositions {
  Domain<D, T> domain;
  const Vec<T, D>* positions;
  Vec<T, D>* wrapped;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    wrapped[i] = wrap_position(domain, positions[i]);
  }
};

/// The points' positions wrapped into the box, written into `wrapped` (resized to fit).
template <class Exec, int D, class T>
const Buffer<Vec<T, D>, Exec>& wrap_into(const Exec& exec,
                                         const Domain<D, T>& domain,
                                         const SearchPoints<D, T>& points,
                                         Buffer<Vec<T, D>, Exec>& wrapped) {
  sized(exec, wrapped, points.size());
  exec::for_each_index(exec, points.size(),
                       WrapPositions<D, T>{domain, points.positions.data(), wrapped.data()});
  return wrapped;
}

/// Row i's stored pairs within the exact radius now, written at the row's Verlet offsets in
/// `kept` (the pairs' order kept), their number in `counts[i]`: one distance test per stored
/// pair.
template <SupportScheme S, int D, class T>
struct KeepWithin {
  PairPeriods<D, T> periods;
  const Vec<T, D>* query_positions; // wrapped
  const T* query_supports;
  const Vec<T, D>* reference_positions; // wrapped
  const T* reference_supports;
  const std::int64_t* verlet_offsets;
  const std::int32_t* verlet_neighbors;
  std::int64_t* counts;
  std::int32_t* kept;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    const std::int64_t begin = verlet_offsets[i];
    std::int64_t at = begin;
    for (std::int64_t k = begin; k < verlet_offsets[i + 1]; ++k) {
      const std::int32_t j = verlet_neighbors[k];
      kept[at] = j; // kept only when the test passes: the next pair overwrites it otherwise
      at += is_neighbor_wrapped<S>(periods, query_positions[i], reference_positions[j],
                                   query_supports[i], reference_supports[j], T(0))
                ? 1
                : 0;
    }
    counts[i] = at - begin;
  }
};

/// Row i's kept pairs moved from its Verlet offsets to the filtered list's offsets.
struct CopyKept {
  const std::int64_t* verlet_offsets;
  const std::int64_t* offsets;
  const std::int32_t* kept;
  std::int32_t* neighbors;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    const std::int32_t* from = kept + verlet_offsets[i];
    std::int32_t* to = neighbors + offsets[i];
    const std::int64_t count = offsets[i + 1] - offsets[i];
    for (std::int64_t k = 0; k < count; ++k) {
      to[k] = from[k];
    }
  }
};
} // namespace search::detail

namespace search::detail {
/// `build_verlet_list` over the memory of `recycled` (a Verlet list no longer needed).
template <SupportScheme S, int D, class T, class Exec>
VerletList<D, T, Exec> verlet_over(const Exec& exec,
                                   const SearchPoints<D, T>& queries,
                                   const SearchPoints<D, T>& references,
                                   const Domain<D, T>& domain,
                                   T skin,
                                   SearchOptions<T> options,
                                   VerletList<D, T, Exec>&& recycled,
                                   BuildScratch<D, T, Exec>* kept = nullptr) {
  options.skin = skin;
  auto list = build_list<S>(exec, queries, references, domain, options, std::move(recycled.list),
                            "build_verlet_list", kept);
  return {
      std::move(list),
      skin,
      copy_of(exec, queries.positions.data(), queries.size(), std::move(recycled.query_positions)),
      copy_of(exec, references.positions.data(), references.size(),
              std::move(recycled.reference_positions)),
      copy_of(exec, queries.supports.data(), queries.size(), std::move(recycled.query_supports)),
      copy_of(exec, references.supports.data(), references.size(),
              std::move(recycled.reference_supports)),
      domain};
}
} // namespace search::detail

/// Builds a Verlet list: the neighbour list of `build_neighbor_list` with every pair radius
/// enlarged by `skin` (≥ 0), plus copies of the positions and supports it saw. Same errors as
/// `build_neighbor_list`, with the skin counted in the check of the search radius against L/2 on
/// periodic axes.
template <SupportScheme S, int D, class T, class Exec>
VerletList<D, T, Exec> build_verlet_list(const Exec& exec,
                                         const SearchPoints<D, T>& queries,
                                         const SearchPoints<D, T>& references,
                                         const Domain<D, T>& domain,
                                         T skin,
                                         SearchOptions<T> options = {}) {
  return search::detail::verlet_over<S>(exec, queries, references, domain, skin, options, {});
}

namespace search::detail {
/// `verlet_needs_rebuild` over scratch kept by the caller.
template <int D, class T, class Exec>
bool needs_rebuild(const Exec& exec,
                   const VerletList<D, T, Exec>& verlet,
                   const SearchPoints<D, T>& queries,
                   const SearchPoints<D, T>& references,
                   const Domain<D, T>& domain,
                   UpkeepScratch<D, T, Exec>& scratch) {
  validate_sizes(queries, "verlet_needs_rebuild", "queries");
  validate_sizes(references, "verlet_needs_rebuild", "references");
  if (queries.size() != verlet.query_positions.size() ||
      references.size() != verlet.reference_positions.size() ||
      !same_pair_geometry(domain, verlet.domain)) {
    return true;
  }
  const T drift_q = max_drift(exec, domain, queries, verlet.query_positions, verlet.query_supports,
                              scratch.drift);
  const T drift_r = max_drift(exec, domain, references, verlet.reference_positions,
                              verlet.reference_supports, scratch.drift);
  return !(drift_q + drift_r <= verlet.skin);
}
} // namespace search::detail

/// Whether the Verlet list may miss a pair now: true when max|Δx_query| + max|Δx_reference| >
/// skin (minimum-image displacements since the build; for one set used in both roles that is
/// 2·max|Δx| > skin, i.e. some particle moved more than skin/2), when any support grew, when a
/// set changed size, when `domain` has other periodic axes or periods than the build's, and when
/// a position or support is NaN (the rebuild's search then reports it). One reduction per set;
/// on CUDA each is read back (synchronizes). Throws `InvalidArgument` for negative or mismatched
/// sizes (positions and supports).
template <int D, class T, class Exec>
bool verlet_needs_rebuild(const Exec& exec,
                          const VerletList<D, T, Exec>& verlet,
                          const SearchPoints<D, T>& queries,
                          const SearchPoints<D, T>& references,
                          const Domain<D, T>& domain) {
  search::detail::UpkeepScratch<D, T, Exec> scratch;
  return search::detail::needs_rebuild(exec, verlet, queries, references, domain, scratch);
}

namespace search::detail {
/// `filter_verlet_list` over the memory of `recycled` (a list no longer needed, taken after the
/// checks) and of `scratch` (the wrapped positions; one set in both roles is wrapped once).
template <SupportScheme S, int D, class T, class Exec>
NeighborList<Exec> filter_over(const Exec& exec,
                               const VerletList<D, T, Exec>& verlet,
                               const SearchPoints<D, T>& queries,
                               const SearchPoints<D, T>& references,
                               const Domain<D, T>& domain,
                               NeighborList<Exec>&& recycled,
                               UpkeepScratch<D, T, Exec>& scratch) {
  constexpr const char* function = "filter_verlet_list";
  SPHAD_REQUIRE(queries.size() == verlet.list.num_queries, function, "queries",
                sphad::detail::concat("has ", queries.size(), " points, the Verlet list ",
                                      verlet.list.num_queries));
  search::detail::validate_sizes(queries, function, "queries");
  search::detail::validate_sizes(references, function, "references");
  SPHAD_REQUIRE(references.size() == verlet.reference_positions.size(), function, "references",
                sphad::detail::concat("has ", references.size(),
                                      " points, the Verlet list was built for ",
                                      verlet.reference_positions.size(),
                                      " (rebuild it after particles are added or removed)"));
  search::check_list_scheme<S>(verlet.list.scheme, function, "verlet", "the");
  SPHAD_REQUIRE(search::detail::same_pair_geometry(domain, verlet.domain), function, "domain",
                "has other periodic axes or periods than the domain the Verlet list was built "
                "over, so pairs across a boundary would be missed or kept wrongly (rebuild it: "
                "verlet_needs_rebuild says so)");
  const std::int64_t nq = queries.size();
  NeighborList<Exec> list{sphad::detail::recycle(exec, std::move(recycled.offsets), nq + 1),
                          Buffer<std::int32_t, Exec>(), nq, 0};
  list.num_references = references.size();
  list.scheme = static_cast<int>(S);
  list.radius = verlet.list.radius - double(verlet.skin);
  const bool one_set = queries.positions.data() == references.positions.data() &&
                       queries.size() == references.size();
  const auto& query_positions = wrap_into(exec, domain, queries, scratch.query_wrapped);
  const auto& reference_positions =
      one_set ? query_positions : wrap_into(exec, domain, references, scratch.reference_wrapped);
  // One distance test per stored pair: the kept pairs written at the Verlet list's offsets in
  // scratch, counted per row; the counts' scan gives the list's offsets; then each row's kept
  // pairs are moved there (a copy, no second test).
  // (Room kept from call to call: as much as the Verlet list's own array holds, which a rebuild
  // grows with room to spare; never shrunk, so the lists until the next growth fit it.)
  if (scratch.kept.size() < verlet.list.num_pairs) {
    scratch.kept = sphad::detail::recycle(
        exec, std::move(scratch.kept),
        std::max(verlet.list.num_pairs, std::int64_t(verlet.list.neighbors.size())));
  }
  auto& kept = scratch.kept;
  exec::fill(exec, list.offsets.data() + nq, 1, std::int64_t(0));
  exec::for_each_index(exec, nq,
                       search::detail::KeepWithin<S, D, T>{
                           search::PairPeriods<D, T>(domain), query_positions.data(),
                           queries.supports.data(), reference_positions.data(),
                           references.supports.data(), verlet.list.offsets.data(),
                           verlet.list.neighbors.data(), list.offsets.data(), kept.data()});
  exec::exclusive_scan(exec, list.offsets.data(), list.offsets.data(), nq + 1);
  // host sync: the total, to size the filtered list
  list.num_pairs = exec::value_to_host(exec, list.offsets.data() + nq);
  // Kept when it has room (a list may hold more entries than pairs); else room for every pair
  // of the Verlet list, so the filtered lists until the next rebuild fit without a reallocation.
  list.neighbors = std::move(recycled.neighbors);
  if (list.neighbors.size() < list.num_pairs) {
    list.neighbors = sphad::detail::recycle(exec, std::move(list.neighbors),
                                            std::max(list.num_pairs, verlet.list.num_pairs));
  }
  exec::for_each_index(exec, nq,
                       search::detail::CopyKept{verlet.list.offsets.data(), list.offsets.data(),
                                                kept.data(), list.neighbors.data()});
  return list;
}
} // namespace search::detail

/// The neighbour list at the exact radius (no skin) for the current positions and supports,
/// taken from the Verlet list's pairs in their stored order. Equal, as a set per row, to a
/// fresh `build_neighbor_list` while `verlet_needs_rebuild` is false. One host read (the total).
/// Throws `InvalidArgument` naming `domain` when its periodic axes or periods differ from the
/// build's (the list would miss the pairs across a new boundary).
template <SupportScheme S, int D, class T, class Exec>
NeighborList<Exec> filter_verlet_list(const Exec& exec,
                                      const VerletList<D, T, Exec>& verlet,
                                      const SearchPoints<D, T>& queries,
                                      const SearchPoints<D, T>& references,
                                      const Domain<D, T>& domain) {
  search::detail::UpkeepScratch<D, T, Exec> scratch;
  return search::detail::filter_over<S>(exec, verlet, queries, references, domain, {}, scratch);
}

} // namespace sphad
