// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/transform_reduce.hpp>
#include <sphad/search/detail/validate.hpp>
#include <sphad/search/neighbor_list.hpp>
#include <sphad/search/verlet.hpp>

#include <cmath>
#include <cstdint>
#include <optional>

/// \file
/// \brief `NeighborCache`: neighbour upkeep in one call per step — a Verlet list kept while no
/// pair can have entered the support, refiltered to the exact pairs each step, rebuilt when some
/// particle has moved more than half the skin — saying which it did.

namespace sphad {

/// What `NeighborCache::update` did.
enum class NeighborUpdate {
  refiltered, ///< the Verlet list still held every pair: filtered to the exact radius
  rebuilt     ///< the Verlet list was built again (first call, a move past the skin, a resize)
};

namespace search::detail {
/// 1 where two positions differ in any bit, else 0 (summed: the number of differences).
template <int D, class T>
struct PositionsDiffer {
  const Vec<T, D>* a;
  const Vec<T, D>* b;
  SPHAD_HOST_DEVICE T operator()(std::int64_t i) const {
    for (int e = 0; e < D; ++e) {
      if (a[i][e] != b[i][e]) {
        return T(1);
      }
    }
    return T(0);
  }
};

/// `same_positions` with its one-element result in `count` (kept by the caller).
template <int D, class T, class Exec>
bool same_positions(const Exec& exec,
                    Span<const Vec<T, D>> a,
                    Span<const Vec<T, D>> b,
                    Buffer<T, Exec>& count) {
  if (a.size() != b.size()) {
    return false;
  }
  sized(exec, count, 1);
  exec::transform_reduce(exec, a.size(), PositionsDiffer<D, T>{a.data(), b.data()}, count.data());
  return exec::value_to_host(exec, count.data()) == T(0); // host sync: the rebuild is a host branch
}
} // namespace search::detail

/// Whether `a` and `b` hold bitwise the same positions (one reduction, read back: synchronizes
/// on CUDA).
template <int D, class T, class Exec>
bool same_positions(const Exec& exec, Span<const Vec<T, D>> a, Span<const Vec<T, D>> b) {
  Buffer<T, Exec> count;
  return search::detail::same_positions(exec, a, b, count);
}

/// A Verlet list with skin `skin` over one particle set (queries and references the same),
/// kept between steps: `update` returns the exact neighbour list of the current positions and
/// records whether it rebuilt or refiltered (`last()`, counts in `rebuilds()`, `refilters()`).
///
/// For checkpointed rollouts, where a step recomputed from a checkpoint must meet the same
/// list, `update_from` takes the positions the list must have been built from (kept in the
/// simulation state): the list is rebuilt whenever it was built from others, so it is a
/// function of the state; when the current positions have moved past the skin it is rebuilt
/// from them, `last()` says `rebuilt`, and the caller stores the current positions as the new
/// reference.
template <SupportScheme S, int D, class T, class Exec>
class NeighborCache {
public:
  /// A cache whose Verlet lists have skin `skin` (finite, ≥ 0; larger skins rebuild less often
  /// and filter more pairs). Throws `InvalidArgument` naming `skin` otherwise.
  explicit NeighborCache(T skin) : skin_(skin) {
    SPHAD_REQUIRE(std::isfinite(skin) && skin >= T(0), "NeighborCache", "skin",
                  sphad::detail::concat("must be finite and >= 0 (got ", skin, ")"));
  }

  /// The exact neighbour list of `points` (both roles), rebuilding the Verlet list when it may
  /// miss a pair, when `domain` has other periodic axes or periods than the last build's, and
  /// when a position or support is not finite. One or two host reads per call (the drift test
  /// and the filter's total). On the host throws `InvalidArgument` naming `points` for a
  /// non-finite position or support, before anything changes (on CUDA the rebuild's search
  /// reports it).
  const NeighborList<Exec>&
  update(const Exec& exec, const SearchPoints<D, T>& points, const Domain<D, T>& domain) {
    check_points(exec, points, "NeighborCache::update", "points");
    last_ = NeighborUpdate::refiltered;
    if (!verlet_ ||
        search::detail::needs_rebuild(exec, *verlet_, points, points, domain, scratch_)) {
      build(exec, points, domain);
    }
    return refilter(exec, points, domain);
  }

  /// The exact neighbour list of `points`, from a Verlet list built from `reference` (positions
  /// of the same particles, supports those of `points`): rebuilt from `reference` when the cache
  /// holds another, and rebuilt from `points` (then `last()` is `rebuilt`) when they have moved
  /// past the skin from `reference` or `domain` changed as for `update`. Throws as `update`,
  /// naming `reference` for its size or a non-finite position in it.
  const NeighborList<Exec>& update_from(const Exec& exec,
                                        const SearchPoints<D, T>& points,
                                        Span<const Vec<T, D>> reference,
                                        const Domain<D, T>& domain) {
    constexpr const char* function = "NeighborCache::update_from";
    check_points(exec, points, function, "points");
    SPHAD_REQUIRE(
        reference.size() == points.size(), function, "reference",
        sphad::detail::concat("has ", reference.size(), " positions, points has ", points.size()));
    check_points(exec, SearchPoints<D, T>{reference, points.supports}, function, "reference");
    last_ = NeighborUpdate::refiltered;
    if (!verlet_ ||
        !search::detail::same_positions(
            exec, reference,
            Span<const Vec<T, D>>{verlet_->query_positions.data(), verlet_->query_positions.size()},
            scratch_.sum)) {
      build(exec, {reference, points.supports}, domain);
      --rebuilds_; // rebuilding the same list again is not a rebuild of the step's
      last_ = NeighborUpdate::refiltered;
    }
    if (search::detail::needs_rebuild(exec, *verlet_, points, points, domain, scratch_)) {
      build(exec, points, domain);
    }
    return refilter(exec, points, domain);
  }

  /// What the last `update` did.
  NeighborUpdate last() const { return last_; }
  /// How many times the Verlet list was rebuilt (restorations in `update_from` not counted).
  std::int64_t rebuilds() const { return rebuilds_; }
  /// How many updates refiltered the kept list.
  std::int64_t refilters() const { return refilters_; }
  /// The skin.
  T skin() const { return skin_; }
  /// The exact list of the last update (empty before the first).
  const NeighborList<Exec>& list() const { return list_; }

private:
  /// The search's checks of `points` under this call's name: sizes, and on the host finite
  /// positions and supports ≥ 0.
  static void check_points(const Exec& exec,
                           const SearchPoints<D, T>& points,
                           const char* function,
                           const char* argument) {
    search::detail::validate_sizes(points, function, argument);
    search::detail::validate_values(exec, points, T(-1), function, argument);
  }

  void build(const Exec& exec, const SearchPoints<D, T>& points, const Domain<D, T>& domain) {
    // Over the previous list's memory and the kept grid (no fresh pages and no allocation for
    // a list of about the same size; taken only once the checks have passed).
    if (verlet_) {
      verlet_ = search::detail::verlet_over<S>(exec, points, points, domain, skin_, {},
                                               std::move(*verlet_), &scratch_.build);
    } else {
      verlet_ = search::detail::verlet_over<S>(exec, points, points, domain, skin_, {}, {},
                                               &scratch_.build);
    }
    last_ = NeighborUpdate::rebuilt;
    ++rebuilds_;
  }
  const NeighborList<Exec>&
  refilter(const Exec& exec, const SearchPoints<D, T>& points, const Domain<D, T>& domain) {
    if (last_ == NeighborUpdate::refiltered) {
      ++refilters_;
    }
    list_ = search::detail::filter_over<S>(exec, *verlet_, points, points, domain, std::move(list_),
                                           scratch_);
    return list_;
  }

  T skin_;
  std::optional<VerletList<D, T, Exec>> verlet_;
  NeighborList<Exec> list_;
  search::detail::UpkeepScratch<D, T, Exec> scratch_; ///< the upkeep's per-call arrays, kept
  NeighborUpdate last_ = NeighborUpdate::rebuilt;
  std::int64_t rebuilds_ = 0, refilters_ = 0;
};

} // namespace sphad
