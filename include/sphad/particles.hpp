// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/search/points.hpp>

#include <cstdint>

/// \file
/// \brief `ParticleSet<D, T, ...>`: non-owning views of a solver's particle arrays; particle kinds
/// and the operation directions that filter pairs by kind.

namespace sphad {

/// Particle kinds, with the reference's values.
enum class ParticleKind : std::int32_t { Fluid = 0, Boundary = 1, Ghost = 2, Other = 3 };

/// Which (query, reference) kinds an operator sums over, named SOURCE-To-TARGET (the reference j
/// is the source, the query i the target), with the reference's integer values (its value 0,
/// `TrueAllToToAll`, is spelled `TrueAllToAll`). Default AllToAll: every query kind, every
/// reference kind but Ghost.
enum class OperationDirection : int {
  TrueAllToAll = 0, ///< no filtering at all, ghosts included
  FluidToFluid = 1,
  FluidToBoundary = 2,
  BoundaryToFluid = 3,
  BoundaryToBoundary = 4,
  FluidToGhost = 5,
  GhostToFluid = 6,
  BoundaryToGhost = 7,
  GhostToBoundary = 8,
  AllToAll = 9,
  AllToGhost = 10,
  AllToFluid = 11,
  AllToBoundary = 12,
  FluidToAll = 13,
  BoundaryToAll = 14,
};

/// The kinds a direction accepts, as bit masks over kind values 0..3 (bit k = kind k); kinds
/// outside 0..3 are rejected by every direction but TrueAllToAll.
struct KindFilter {
  std::uint32_t query = 0xffffffffu;
  std::uint32_t reference = 0xffffffffu;
  bool everything = true; ///< TrueAllToAll: no test at all

  SPHAD_HOST_DEVICE SPHAD_INLINE bool accepts_query(std::int32_t kind) const {
    return everything || (kind >= 0 && kind < 4 && ((query >> kind) & 1u));
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE bool accepts_reference(std::int32_t kind) const {
    return everything || (kind >= 0 && kind < 4 && ((reference >> kind) & 1u));
  }
  /// Whether every reference of a valid kind (one of the four, as every call checks) passes:
  /// the pair loops then test none.
  SPHAD_HOST_DEVICE SPHAD_INLINE bool accepts_every_kind() const {
    return everything || (reference & 15u) == 15u;
  }
  /// This filter for particles whose kinds are known to be among `query_kinds` and
  /// `reference_kinds` (bit masks as above; a mask with bits past kind 3 means "not known"): a
  /// kind no particle has is accepted too, so that a filter dropping no particle present tests
  /// none (the default AllToAll over references without Ghosts). Same pairs, same sums.
  SPHAD_HOST_DEVICE SPHAD_INLINE KindFilter for_kinds_present(std::uint32_t query_kinds,
                                                              std::uint32_t reference_kinds) const {
    const bool known = ((query_kinds | reference_kinds) & ~15u) == 0;
    if (everything || !known) {
      return *this;
    }
    KindFilter widened{query | (~query_kinds & 15u), reference | (~reference_kinds & 15u), false};
    widened.everything = (widened.query & 15u) == 15u && (widened.reference & 15u) == 15u;
    return widened;
  }
};

namespace detail {
constexpr std::uint32_t fluid = 1u, boundary = 2u, ghost = 4u, other = 8u;
constexpr std::uint32_t any_kind = fluid | boundary | ghost | other;
constexpr std::uint32_t not_ghost = fluid | boundary | other;
} // namespace detail

/// The kind filter of a direction; the one table of directions. Returns
/// `false` in `known` for a value that is no direction.
constexpr KindFilter kind_filter(OperationDirection direction, bool* known = nullptr) {
  using detail::any_kind, detail::boundary, detail::fluid, detail::ghost, detail::not_ghost;
  struct Row {
    std::uint32_t query, reference;
  };
  constexpr Row table[15] = {{any_kind, any_kind},  {fluid, fluid},       {boundary, fluid},
                             {fluid, boundary},     {boundary, boundary}, {ghost, fluid},
                             {fluid, ghost},        {ghost, boundary},    {boundary, ghost},
                             {any_kind, not_ghost}, {ghost, not_ghost},   {fluid, not_ghost},
                             {boundary, not_ghost}, {not_ghost, fluid},   {not_ghost, boundary}};
  const int value = static_cast<int>(direction);
  if (known != nullptr) {
    *known = value >= 0 && value < 15;
  }
  if (value == 0) {
    return KindFilter{};
  }
  if (value < 0 || value >= 15) {
    return KindFilter{0u, 0u, false};
  }
  return KindFilter{table[value].query, table[value].reference, false};
}

/// Views of one particle set's arrays in the memory of the execution space it is used with:
/// positions [N, D], supports [N], masses [N], kinds [N] (required), densities [N] and volumes
/// [N] (optional: leave empty). No copy is made; nothing here is ever written.
///
/// `ParticleSet<D, T>` views plain arrays of T (T may itself be a `Dual`: every field then
/// carries tangents). Each floating field's view type is a template parameter, so one field can
/// carry tangents while the others stay plain: `with_positions(with_tangents(x, dx))` replaces
/// the positions' view by a `DualView` that pairs the primal array with tangent arrays. Which
/// inputs carry tangents is a compile-time fact of the set's type; kinds never do (giving them
/// tangents does not compile).
/// @tparam T  the scalar of the primal arrays (what the search and the domain use).
template <int D,
          class T,
          class Positions = Span<const Vec<T, D>>,
          class Supports = Span<const T>,
          class Masses = Span<const T>,
          class Densities = Span<const T>,
          class Volumes = Span<const T>>
struct ParticleSet {
  static constexpr int dim = D;
  using primal_scalar = primal_t<T>;
  Positions positions;
  Supports supports;
  Masses masses;
  Span<const std::int32_t> kinds;
  Densities densities{};
  Volumes volumes{};

  SPHAD_HOST_DEVICE SPHAD_INLINE std::int64_t size() const { return positions.size(); }
  /// The positions and supports the neighbour search uses (primal values only).
  SPHAD_HOST_DEVICE SPHAD_INLINE SearchPoints<D, T> search_points() const {
    return {primal_view(positions), primal_view(supports)};
  }

  /// This set with one field's view replaced (e.g. by a `DualView` carrying its tangents).
  template <class V>
  ParticleSet<D, T, V, Supports, Masses, Densities, Volumes> with_positions(const V& v) const {
    return {v, supports, masses, kinds, densities, volumes};
  }
  template <class V>
  ParticleSet<D, T, Positions, V, Masses, Densities, Volumes> with_supports(const V& v) const {
    return {positions, v, masses, kinds, densities, volumes};
  }
  template <class V>
  ParticleSet<D, T, Positions, Supports, V, Densities, Volumes> with_masses(const V& v) const {
    return {positions, supports, v, kinds, densities, volumes};
  }
  template <class V>
  ParticleSet<D, T, Positions, Supports, Masses, V, Volumes> with_densities(const V& v) const {
    return {positions, supports, masses, kinds, v, volumes};
  }
  template <class V>
  ParticleSet<D, T, Positions, Supports, Masses, Densities, V> with_volumes(const V& v) const {
    return {positions, supports, masses, kinds, densities, v};
  }
};

/// The scalar a set's pair terms compute in: the promotion of every floating field's element
/// scalar (plain when no field carries tangents, `Dual<..., N>` when any does).
template <class Set>
using particle_scalar_t = promote_all_t<view_scalar_t<decltype(Set::positions)>,
                                        view_scalar_t<decltype(Set::supports)>,
                                        view_scalar_t<decltype(Set::masses)>,
                                        view_scalar_t<decltype(Set::densities)>,
                                        view_scalar_t<decltype(Set::volumes)>>;

} // namespace sphad
