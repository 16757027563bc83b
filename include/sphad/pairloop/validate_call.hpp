// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/kernels/lattice.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pair/options.hpp>
#include <sphad/pairloop/evaluate.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/particles.hpp>
#include <sphad/search/hash_grid.hpp>
#include <sphad/search/list_checks.hpp>
#include <sphad/search/neighbor_list.hpp>

#include <cmath>
#include <cstdint>
#include <utility>

/// \file
/// \brief The checks of an operator call, all before any launch: particle sets, correction
/// states, field values, options, the domain and the adjacency (a list or the search grid).

namespace sphad::pairloop {

/// The particle count of a set, checked ≥ 0 (entry points that allocate per particle call it
/// before allocating).
template <class Set>
std::int64_t checked_size(const Set& set, const char* function, const char* name) {
  SPHAD_REQUIRE(set.size() >= 0, function, name,
                sphad::detail::concat("has a negative size (got ", set.size(), " positions)"));
  return set.size();
}

template <class Set>
void validate_particles(const Set& set,
                        bool needs_densities,
                        const char* function,
                        const char* name) {
  const std::int64_t n = checked_size(set, function, name);
  const auto check = [&](std::int64_t size, const char* what) {
    SPHAD_REQUIRE(size == n, function, name,
                  sphad::detail::concat(what, " has ", size, " entries, positions ", n));
  };
  check(set.supports.size(), "supports");
  check(set.masses.size(), "masses");
  check(set.kinds.size(), "kinds (required)");
  if (needs_densities && set.volumes.size() == 0) {
    SPHAD_REQUIRE(set.densities.size() == n, function, name,
                  sphad::detail::concat("densities are required by this operator (got ",
                                        set.densities.size(), " for ", n, " particles)"));
  }
  SPHAD_REQUIRE(
      set.densities.size() == 0 || set.densities.size() == n, function, name,
      sphad::detail::concat("densities has ", set.densities.size(), " entries, positions ", n));
  SPHAD_REQUIRE(
      set.volumes.size() == 0 || set.volumes.size() == n, function, name,
      sphad::detail::concat("volumes has ", set.volumes.size(), " entries, positions ", n));
}

/// The correction states must cover the query (CRK, renormalization) and both sets (grad-h);
/// CRK factors describe one particle set, so a distinct reference set needs its own volumes.
template <class Queries,
          class References,
          class CRKType,
          class RenormalizationType,
          class GradHType>
void validate_corrections(const Corrections<CRKType, RenormalizationType, GradHType>& c,
                          const Queries& queries,
                          const References& references,
                          const char* function) {
  const std::int64_t nq = queries.size();
  const std::int64_t nr = references.size();
  if constexpr (!std::is_same_v<CRKType, NoCRK>) {
    SPHAD_REQUIRE(primal_view(queries.positions).data() ==
                          primal_view(references.positions).data() ||
                      references.volumes.size() > 0,
                  function, "corrections.crk",
                  "CRK factors describe one particle set; with a distinct reference set pass the "
                  "references' volumes");
    const bool complete = c.crk.a.size() == nq && c.crk.b.size() == nq &&
                          c.crk.grad_a.size() == nq && c.crk.grad_b.size() == nq;
    SPHAD_REQUIRE(complete, function, "corrections.crk",
                  sphad::detail::concat("A, B, grad A and grad B need one entry per query (got ",
                                        c.crk.a.size(), ", ", c.crk.b.size(), ", ",
                                        c.crk.grad_a.size(), ", ", c.crk.grad_b.size(), " for ", nq,
                                        ")"));
  }
  if constexpr (!std::is_same_v<RenormalizationType, NoRenormalization>) {
    SPHAD_REQUIRE(c.renormalization.matrices.size() == nq, function, "corrections.renormalization",
                  sphad::detail::concat("needs one matrix per query (got ",
                                        c.renormalization.matrices.size(), " for ", nq, ")"));
  }
  if constexpr (!std::is_same_v<GradHType, NoGradH>) {
    SPHAD_REQUIRE(c.grad_h.query_omegas.size() == nq && c.grad_h.reference_omegas.size() == nr,
                  function, "corrections.grad_h",
                  sphad::detail::concat("needs one omega per query and per reference (got ",
                                        c.grad_h.query_omegas.size(), " and ",
                                        c.grad_h.reference_omegas.size(), " for ", nq, " and ", nr,
                                        ")"));
  }
}

/// Whether Op refuses grad-h corrections (`static constexpr bool rejects_grad_h = true`).
template <class Op, class = void>
inline constexpr bool rejects_grad_h_v = false;
template <class Op>
inline constexpr bool rejects_grad_h_v<Op, std::void_t<decltype(Op::rejects_grad_h)>> =
    Op::rejects_grad_h;

/// Checks the call (all but the output and the adjacency) and returns the calibration factor.
template <class Op,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr,
          class R>
R validate_call(const Queries& queries,
                const References& references,
                const Domain<Queries::dim, R>& domain,
                const QueryValues& query_values,
                const ReferenceValues& reference_values,
                const ApplyOptions<R>& options,
                const Corr& corrections,
                const char* function) {
  validate_particles(queries, Op::needs_densities, function, "queries");
  // Symmetric schemes and consistentDivergence read ρ_i; the reference side needs ρ_j (or
  // volumes) for V_j.
  validate_particles(references, Op::needs_densities, function, "references");
  validate_domain(domain, function, "domain");
  validate_corrections(corrections, queries, references, function);
  if constexpr (rejects_grad_h_v<Op> &&
                !std::is_same_v<std::remove_cv_t<decltype(corrections.grad_h)>, NoGradH>) {
    sphad::detail::throw_invalid_argument(
        function, "corrections.grad_h",
        "is given to an operator that cannot apply it to every term (a Fused whose terms do not "
        "all use grad-h): call the terms that use grad-h on their own");
  }
  if constexpr (Op::needs_values) {
    SPHAD_REQUIRE(query_values.size() == queries.size(), function, "query_values",
                  sphad::detail::concat("has ", query_values.size(), " entries for ",
                                        queries.size(), " queries"));
    SPHAD_REQUIRE(reference_values.size() == references.size(), function, "reference_values",
                  sphad::detail::concat("has ", reference_values.size(), " entries for ",
                                        references.size(), " references"));
  }
  bool known = false;
  kind_filter(options.direction, &known);
  SPHAD_REQUIRE(known, function, "options.direction",
                sphad::detail::concat("unknown OperationDirection (got ",
                                      static_cast<int>(options.direction), ", expected 0-14)"));
  SPHAD_REQUIRE(options.calibration_n_h == 0 ||
                    (options.calibration_n_h > 0 &&
                     double(options.calibration_n_h) <= kernels::max_lattice_n_h),
                function, "options.calibration_n_h",
                sphad::detail::concat("must be 0 (off) or in (0, ", kernels::max_lattice_n_h,
                                      "] support radii per particle spacing (got ",
                                      options.calibration_n_h, ")"));
  if (options.calibration_n_h > 0) {
    return R(kernels::lattice_density_factor<typename Op::kernel_type>(
        double(options.calibration_n_h), Queries::dim, function, "options.calibration_n_h"));
  }
  return R(1);
}

/// What the checks of one particle set found: its largest support (-1: not known) and the kinds
/// its particles have (bit k: kind k; `any_kind_value`: not known).
template <class R>
struct ParticleScan {
  R largest_support;
  std::uint32_t kinds;
};
constexpr std::uint32_t any_kind_value = 0xffffffffu;

/// Host memory, O(N): every position and support finite, every support > 0 (the kernels divide
/// by h) and every kind one of the four (another kind would be filtered out by every direction
/// but TrueAllToAll). Returns the largest support and the kinds present.
template <class Set>
ParticleScan<typename Set::primal_scalar>
check_particle_values(const exec::host&, const Set& set, const char* function, const char* name) {
  using R = typename Set::primal_scalar;
  const auto x = primal_view(set.positions);
  const auto h = primal_view(set.supports);
  R largest = R(0);
  std::uint32_t kinds = 0;
  for (std::int64_t i = 0; i < set.size(); ++i) {
    const R h_i = R(value_of(h[i]));
    bool finite = std::isfinite(h_i);
    for (int a = 0; a < Set::dim; ++a) {
      finite = finite && std::isfinite(R(value_of(x[i][a])));
    }
    SPHAD_REQUIRE(finite, function, name,
                  sphad::detail::concat("has a non-finite position or support at index ", i));
    for (int a = 0; a < Set::dim; ++a) {
      const R x_a = R(value_of(x[i][a]));
      SPHAD_REQUIRE(coordinate_in_range(x_a), function, name,
                    sphad::detail::concat("has a position beyond half the largest float at "
                                          "index ",
                                          i, " (got ", x_a, "): its pair vectors would overflow"));
    }
    SPHAD_REQUIRE(h_i > R(0), function, name,
                  sphad::detail::concat("has a support <= 0 at index ", i, " (got ", h_i,
                                        "); operators need h > 0"));
    const std::int32_t kind = set.kinds[i];
    SPHAD_REQUIRE(kind >= 0 && kind <= 3, function, name,
                  sphad::detail::concat("has an unknown particle kind at index ", i, " (got ", kind,
                                        "; kinds are 0 fluid, 1 boundary, 2 ghost, 3 other)"));
    largest = h_i > largest ? h_i : largest;
    kinds |= 1u << kind;
  }
  return {largest, kinds};
}

/// Device memory is not read on the host: a CUDA call does not check particle values (no
/// largest support, no kinds known).
template <class Exec, class Set>
ParticleScan<typename Set::primal_scalar>
check_particle_values(const Exec&, const Set&, const char*, const char*) {
  return {typename Set::primal_scalar(-1), any_kind_value};
}

/// The neighbours a call traverses and the kind filter its launch applies: the direction's,
/// widened to the kinds absent from the particles (no test where no particle present is
/// dropped).
template <class Neighbors>
struct Traversal {
  Neighbors neighbors;
  KindFilter filter;
};
template <class Neighbors, class R>
Traversal<Neighbors> traversal_of(const Neighbors& neighbors,
                                  OperationDirection direction,
                                  const ParticleScan<R>& queries,
                                  const ParticleScan<R>& references) {
  return {neighbors, kind_filter(direction).for_kinds_present(queries.kinds, references.kinds)};
}

/// Whether two sets view the same arrays (one set in both roles: checked once).
template <class Queries, class References>
bool same_set(const Queries& queries, const References& references) {
  const auto same = [](const void* a, const void* b) { return a == b; };
  return same(primal_view(queries.positions).data(), primal_view(references.positions).data()) &&
         same(primal_view(queries.supports).data(), primal_view(references.supports).data()) &&
         queries.kinds.data() == references.kinds.data() && queries.size() == references.size();
}

/// `check_particle_values` of the queries and of the references (one set in both roles:
/// checked once).
template <class Exec, class Queries, class References>
std::pair<ParticleScan<typename Queries::primal_scalar>,
          ParticleScan<typename References::primal_scalar>>
check_both_sets(const Exec& exec,
                const Queries& queries,
                const References& references,
                const char* function) {
  const auto q = check_particle_values(exec, queries, function, "queries");
  return {q, same_set(queries, references)
                 ? q
                 : check_particle_values(exec, references, function, "references")};
}

/// The neighbours of each query: the rows of a list, checked against both sets and the
/// operator's support scheme...
template <SupportScheme S, class Exec, class Queries, class References>
Traversal<ListNeighbors> traversal(const Exec& exec,
                                   const NeighborList<Exec>& list,
                                   const Queries& queries,
                                   const References& references,
                                   OperationDirection direction,
                                   const char* function) {
  const auto [q, r] = check_both_sets(exec, queries, references, function);
  search::check_list_scheme<S>(list.scheme, function, "neighbors", "the operator's");
  search::check_list(exec, list, queries.size(), references.size(), function, "neighbors");
  return traversal_of(ListNeighbors{list.offsets.data(), list.neighbors.data()}, direction, q, r);
}

/// ...or the search grid, traversed directly, checked against the references it
/// sorted and, on the host, against the supports it must reach.
template <SupportScheme S, int D, class R, class Exec, class Queries, class References>
Traversal<GridNeighbors<S, D, R>> traversal(const Exec& exec,
                                            const search::HashGrid<D, R, Exec>& grid,
                                            const Queries& queries,
                                            const References& references,
                                            OperationDirection direction,
                                            const char* function) {
  const auto [q, r] = check_both_sets(exec, queries, references, function);
  const R h_q = q.largest_support;
  const R h_r = r.largest_support;
  SPHAD_REQUIRE(grid.sorted_index.size() == references.size(), function, "neighbors",
                sphad::detail::concat("is a grid over ", grid.sorted_index.size(),
                                      " references but the call has ", references.size(),
                                      " (rebuild it after particles are added or removed)"));
  const R needed = search::max_search_radius<S>(h_q, h_r);
  SPHAD_REQUIRE(h_q < R(0) || h_r < R(0) || needed <= grid.radius, function, "neighbors",
                sphad::detail::concat("is a grid for search radius ", grid.radius,
                                      " but the supports need ", needed,
                                      " (rebuild it after supports grow)"));
  return traversal_of(GridNeighbors<S, D, R>{grid.view()}, direction, q, r);
}

} // namespace sphad::pairloop
