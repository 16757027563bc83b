// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/scalar_traits.hpp>
#include <sphad/domain.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/kernels/lattice.hpp>
#include <sphad/ops/corrections.hpp>
#include <sphad/ops/operators.hpp>
#include <sphad/ops/pair.hpp>
#include <sphad/particles.hpp>
#include <sphad/search/hash_grid.hpp>
#include <sphad/search/list_checks.hpp>
#include <sphad/search/neighbor_list.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>

/// \file
/// \brief `apply<Op>`: evaluate an operator for every query particle over a neighbour list or
/// directly over the search grid (decision N5), with kind/direction filtering and validation.

namespace sphad {

/// Knobs of an operator call that do not change generated code.
template <class R>
struct ApplyOptions {
  OperationDirection direction = OperationDirection::AllToAll; ///< decision O5 default
  /// Lattice calibration (K7): when > 0, every kernel quantity is multiplied by
  /// `kernels::lattice_density_factor<Kernel>(n_h, D)`.
  R calibration_n_h = R(0);
};

namespace detail {

template <class View, class = void>
inline constexpr bool has_data_pointer_v = false;
template <class View>
inline constexpr bool has_data_pointer_v<
    View,
    std::enable_if_t<std::is_pointer_v<decltype(std::declval<const View&>().data)>>> = true;

/// A host prefetch of element j of a view with a `data` pointer (nothing on the device, for
/// other views, or past the end).
template <class View>
SPHAD_HOST_DEVICE SPHAD_INLINE void prefetch_element(const View& view, std::int64_t j) {
#if !SPHAD_DEVICE_PASS && defined(__GNUC__)
  if constexpr (has_data_pointer_v<View>) {
    if (j < view.size) {
      __builtin_prefetch(view.data + j);
    }
  }
#else
  (void)view;
  (void)j;
#endif
}

} // namespace detail

namespace ops::detail {

/// Neighbours of query i from a CSR list.
struct ListNeighbors {
  const std::int64_t* offsets;
  const std::int32_t* neighbors;
  template <class X, class H, class F>
  SPHAD_HOST_DEVICE SPHAD_INLINE void for_each(std::int64_t i, const X&, const H&, F&& f) const {
    for (std::int64_t k = offsets[i]; k < offsets[i + 1]; ++k) {
      f(neighbors[k]);
    }
  }
};

/// Neighbours of query i straight from the search grid, in the list's order (found from the
/// primal position and support: the neighbour set carries no tangents, decision A3).
template <SupportScheme S, int D, class R>
struct GridNeighbors {
  search::HashGridView<D, R> grid;
  template <class X, class H, class F>
  SPHAD_HOST_DEVICE SPHAD_INLINE void for_each(std::int64_t, const X& x, const H& h, F&& f) const {
    const auto primal_x = sphad::detail::generate_vec<D>([&](int k) { return R(value_of(x[k])); });
    search::for_each_neighbor<S>(grid, primal_x, R(value_of(h)), R(0), f);
  }
};

/// Stores query i's result at out[i].
template <class Out>
struct StoreAt {
  Out* out;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i, const Out& value) const {
    out[i] = value;
  }
};

/// The query field element F with its scalar promoted to the reference element RF's and S
/// (NoField stays NoField).
template <class F, class RF, class S>
struct promoted_field {
  using type = rebind_scalar_t<F, promote_all_t<scalar_of_t<F>, scalar_of_t<RF>, S>>;
};
template <class RF, class S>
struct promoted_field<NoField, RF, S> {
  using type = NoField;
};

/// The scalar the pair terms of a call compute in: the promotion of every particle field's and
/// correction state's scalar (plain unless one carries tangents).
template <class Queries, class References = Queries, class Corr = Uncorrected>
using call_scalar_t = promote_all_t<particle_scalar_t<Queries>,
                                    particle_scalar_t<References>,
                                    typename Corr::scalar_type>;

/// The types of one operator call: `scalar` is what the pair terms compute in (the promotion of
/// every particle field's and correction state's scalar: plain unless one carries tangents),
/// `field` the field values' element promoted to it (value tangents alone leave `scalar` plain:
/// the value-only JVP keeps the kernel work plain), `output` what each query gets.
template <class Op,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr>
struct CallTypes {
  static_assert(Queries::dim == References::dim,
                "sphad::apply: queries and references must have the same dimension D");
  static constexpr int dim = Queries::dim;
  using scalar = call_scalar_t<Queries, References, Corr>;
  /// Each input's own scalar: what the pair terms read (an input without tangents stays plain).
  template <class View>
  using of = view_scalar_t<View>; // the scalar of a view
  using Q = Queries;
  using R = References;
  using pair_scalars =
      PairScalars<promote_all_t<of<decltype(Q::positions)>, of<decltype(R::positions)>>,
                  promote_all_t<of<decltype(Q::supports)>, of<decltype(R::supports)>>,
                  of<decltype(R::masses)>,
                  promote_all_t<of<decltype(Q::densities)>, of<decltype(R::densities)>>,
                  promote_all_t<of<decltype(R::volumes)>,
                                of<decltype(R::masses)>,
                                of<decltype(Q::densities)>,
                                of<decltype(R::densities)>>, // V_j is m_j/ρ_j without volumes
                  scalar>;
  /// The field as the pair terms read it: the values' element, promoted by Ω's scalar (grad-h
  /// divides the values).
  using field = typename promoted_field<view_element_t<QueryValues>,
                                        view_element_t<ReferenceValues>,
                                        typename decltype(Corr::grad_h)::scalar_type>::type;
  using output =
      typename Op::template output_t<dim,
                                     scalar,
                                     typename promoted_field<view_element_t<QueryValues>,
                                                             view_element_t<ReferenceValues>,
                                                             scalar>::type>;
};

template <class Op,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr>
using output_of_t =
    typename CallTypes<Op, Queries, References, QueryValues, ReferenceValues, Corr>::output;

/// One query particle's sum: zero when its kind is filtered out (ref-operators §3.1), else the
/// operator's pair terms over the accepted neighbours, accumulated in neighbour order; `store`
/// writes it. Every input is read through its view and converted to the call's scalar.
template <class Op,
          class Neighbors,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr,
          class Store>
struct Evaluate {
  using Types = CallTypes<Op, Queries, References, QueryValues, ReferenceValues, Corr>;
  using T = typename Types::scalar;
  using S = typename Types::pair_scalars;
  using F = typename Types::field;
  using Out = typename Types::output;
  static constexpr int D = Types::dim;

  Neighbors neighbors;
  Queries queries;
  References references;
  Domain<D, primal_t<T>> domain;
  KindFilter filter;
  QueryValues query_values;
  ReferenceValues reference_values;
  primal_t<T> factor;
  Corr corrections;
  Store store;
  /// Skip the pair (i, i) (queries and references are one set): only the Density HVP, whose
  /// self term is structurally zero (decision A5), sets it.
  bool skip_self_pairs;

  template <class X, class View>
  SPHAD_HOST_DEVICE SPHAD_INLINE static X read(const View& view, std::int64_t i) {
    return sphad::detail::convert_scalars<X>(view[i]);
  }
  template <class X, class View>
  SPHAD_HOST_DEVICE SPHAD_INLINE static X read_optional(const View& view, std::int64_t i) {
    return view.size > 0 ? read<X>(view, i) : X(0);
  }

  /// What a pair term reads of query i: position, support, density and field value (grad-h
  /// applied).
  struct QueryInputs {
    Vec<typename S::position, D> x;
    typename S::support h;
    typename S::density rho;
    F f;
  };
  SPHAD_HOST_DEVICE SPHAD_INLINE QueryInputs query_inputs(std::int64_t i) const {
    QueryInputs q{read<Vec<typename S::position, D>>(queries.positions, i),
                  read<typename S::support>(queries.supports, i),
                  read_optional<typename S::density>(queries.densities, i), F{}};
    if constexpr (Op::needs_values) {
      q.f = read<F>(query_values, i);
      if constexpr (Op::uses_grad_h) {
        q.f = corrections.grad_h.query(q.f, i);
      }
    }
    return q;
  }

  /// V_j as the pair terms read it: reference j's volume, or m_j/ρ_j without volumes.
  SPHAD_HOST_DEVICE SPHAD_INLINE typename S::volume reference_volume(std::int32_t j) const {
    using V = typename S::volume;
    return references.volumes.size > 0
               ? read<V>(references.volumes, j)
               : V(safe_divide(read<typename S::mass>(references.masses, j),
                               read_optional<typename S::density>(references.densities, j)));
  }

  /// The pair (query i, reference j) as the operator's term reads it.
  SPHAD_HOST_DEVICE SPHAD_INLINE auto
  make_pair(std::int64_t i, std::int32_t j, const QueryInputs& q) const {
    using Rho = typename S::density;
    const auto rho_j = read_optional<Rho>(references.densities, j);
    const auto m_j = read<typename S::mass>(references.masses, j);
    Pair<typename Op::kernel_type, Op::support, D, S, F, Corr> pair{
        i,
        j,
        corrections,
        domain.difference(q.x, read<Vec<typename S::position, D>>(references.positions, j)),
        q.h,
        read<typename S::support>(references.supports, j),
        m_j,
        q.rho,
        rho_j,
        reference_volume(j),
        q.f,
        F{},
        factor};
    if constexpr (Op::needs_values) {
      pair.f_j = read<F>(reference_values, j);
      if constexpr (Op::uses_grad_h) {
        pair.f_j = corrections.grad_h.reference(pair.f_j, j);
      }
    }
    return pair;
  }

  /// Asks the host's caches for reference j's inputs ahead of use (the reverse pass's loop
  /// body is too long for the processor to run ahead to the next pair's loads on its own).
  SPHAD_HOST_DEVICE SPHAD_INLINE void prefetch_reference(std::int32_t j) const {
    sphad::detail::prefetch_element(references.positions, j);
    sphad::detail::prefetch_element(references.supports, j);
    sphad::detail::prefetch_element(references.masses, j);
    sphad::detail::prefetch_element(references.densities, j);
    sphad::detail::prefetch_element(references.volumes, j);
    if constexpr (Op::needs_values) {
      sphad::detail::prefetch_element(reference_values, j);
    }
  }

  /// The operator's term of the pair (query i, reference j): the one definition the primal,
  /// the JVP and the reverse passes all evaluate.
  SPHAD_HOST_DEVICE SPHAD_INLINE auto
  pair_term(std::int64_t i, std::int32_t j, const QueryInputs& q) const {
    return Op::term(make_pair(i, j, q));
  }

  SPHAD_HOST_DEVICE SPHAD_FLATTEN void operator()(std::int64_t i) const {
    Out sum{};
    if (filter.accepts_query(queries.kinds[i])) {
      const QueryInputs q = query_inputs(i);
      neighbors.for_each(i, q.x, q.h, [&](std::int32_t j) {
        if (filter.accepts_reference(references.kinds[j]) && !(skip_self_pairs && j == i)) {
          sum += pair_term(i, j, q);
        }
      });
    }
    store(i, sum);
  }
};

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
  check(set.supports.size, "supports");
  check(set.masses.size, "masses");
  check(set.kinds.size, "kinds (required)");
  if (needs_densities && set.volumes.size == 0) {
    SPHAD_REQUIRE(set.densities.size == n, function, name,
                  sphad::detail::concat("densities are required by this operator (got ",
                                        set.densities.size, " for ", n, " particles)"));
  }
  SPHAD_REQUIRE(
      set.densities.size == 0 || set.densities.size == n, function, name,
      sphad::detail::concat("densities has ", set.densities.size, " entries, positions ", n));
  SPHAD_REQUIRE(set.volumes.size == 0 || set.volumes.size == n, function, name,
                sphad::detail::concat("volumes has ", set.volumes.size, " entries, positions ", n));
}

/// The correction states must cover the query (CRK, renormalization) and both sets (grad-h);
/// CRK factors describe one particle set, so a distinct reference set needs its own volumes
/// (decision C4).
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
    SPHAD_REQUIRE(primal_view(queries.positions).data == primal_view(references.positions).data ||
                      references.volumes.size > 0,
                  function, "corrections.crk",
                  "CRK factors describe one particle set; with a distinct reference set pass the "
                  "references' volumes");
    const bool complete = c.crk.a.size == nq && c.crk.b.size == nq && c.crk.grad_a.size == nq &&
                          c.crk.grad_b.size == nq;
    SPHAD_REQUIRE(complete, function, "corrections.crk",
                  sphad::detail::concat("A, B, grad A and grad B need one entry per query (got ",
                                        c.crk.a.size, ", ", c.crk.b.size, ", ", c.crk.grad_a.size,
                                        ", ", c.crk.grad_b.size, " for ", nq, ")"));
  }
  if constexpr (!std::is_same_v<RenormalizationType, NoRenormalization>) {
    SPHAD_REQUIRE(c.renormalization.matrices.size == nq, function, "corrections.renormalization",
                  sphad::detail::concat("needs one matrix per query (got ",
                                        c.renormalization.matrices.size, " for ", nq, ")"));
  }
  if constexpr (!std::is_same_v<GradHType, NoGradH>) {
    SPHAD_REQUIRE(c.grad_h.query_omegas.size == nq && c.grad_h.reference_omegas.size == nr,
                  function, "corrections.grad_h",
                  sphad::detail::concat("needs one omega per query and per reference (got ",
                                        c.grad_h.query_omegas.size, " and ",
                                        c.grad_h.reference_omegas.size, " for ", nq, " and ", nr,
                                        ")"));
  }
}

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
  if constexpr (Op::needs_values) {
    SPHAD_REQUIRE(query_values.size == queries.size(), function, "query_values",
                  sphad::detail::concat("has ", query_values.size, " entries for ", queries.size(),
                                        " queries"));
    SPHAD_REQUIRE(reference_values.size == references.size(), function, "reference_values",
                  sphad::detail::concat("has ", reference_values.size, " entries for ",
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
    return R(kernels::detail::lattice_density_factor<typename Op::kernel_type>(
        double(options.calibration_n_h), Queries::dim, function, "options.calibration_n_h"));
  }
  return R(1);
}

/// Host memory, O(N): every position and support finite, every support > 0 (the kernels divide
/// by h) and every kind one of the four (another kind would be filtered out by every direction
/// but TrueAllToAll). Returns the largest support.
template <class Set>
typename Set::primal_scalar
check_particle_values(const exec::host&, const Set& set, const char* function, const char* name) {
  using R = typename Set::primal_scalar;
  const auto x = primal_view(set.positions);
  const auto h = primal_view(set.supports);
  R largest = R(0);
  for (std::int64_t i = 0; i < set.size(); ++i) {
    const R h_i = R(value_of(h[i]));
    bool finite = std::isfinite(h_i);
    for (int a = 0; a < Set::dim; ++a) {
      finite = finite && std::isfinite(R(value_of(x[i][a])));
    }
    SPHAD_REQUIRE(finite, function, name,
                  sphad::detail::concat("has a non-finite position or support at index ", i));
    SPHAD_REQUIRE(h_i > R(0), function, name,
                  sphad::detail::concat("has a support <= 0 at index ", i, " (got ", h_i,
                                        "); operators need h > 0"));
    const std::int32_t kind = set.kinds[i];
    SPHAD_REQUIRE(kind >= 0 && kind <= 3, function, name,
                  sphad::detail::concat("has an unknown particle kind at index ", i, " (got ", kind,
                                        "; kinds are 0 fluid, 1 boundary, 2 ghost, 3 other)"));
    largest = h_i > largest ? h_i : largest;
  }
  return largest;
}

/// Device memory is not read on the host: a CUDA call does not check particle values (-1: no
/// largest support known).
template <class Exec, class Set>
typename Set::primal_scalar
check_particle_values(const Exec&, const Set&, const char*, const char*) {
  return typename Set::primal_scalar(-1);
}

/// Whether two sets view the same arrays (one set in both roles: checked once).
template <class Queries, class References>
bool same_set(const Queries& queries, const References& references) {
  const auto same = [](const void* a, const void* b) { return a == b; };
  return same(primal_view(queries.positions).data, primal_view(references.positions).data) &&
         same(primal_view(queries.supports).data, primal_view(references.supports).data) &&
         queries.kinds.data == references.kinds.data && queries.size() == references.size();
}

/// The neighbours of each query: the rows of a list, checked against both sets and the
/// operator's support scheme...
template <SupportScheme S, class Exec, class Queries, class References>
ListNeighbors traversal(const Exec& exec,
                        const NeighborList<Exec>& list,
                        const Queries& queries,
                        const References& references,
                        const char* function) {
  check_particle_values(exec, queries, function, "queries");
  if (!same_set(queries, references)) {
    check_particle_values(exec, references, function, "references");
  }
  search::detail::check_list_scheme<S>(list.scheme, function, "neighbors", "the operator's");
  search::detail::check_list(exec, list, queries.size(), references.size(), function, "neighbors");
  return ListNeighbors{list.offsets.data(), list.neighbors.data()};
}

/// ...or the search grid, traversed directly (decision N5), checked against the references it
/// sorted and, on the host, against the supports it must reach.
template <SupportScheme S, int D, class R, class Exec, class Queries, class References>
GridNeighbors<S, D, R> traversal(const Exec& exec,
                                 const search::HashGrid<D, R, Exec>& grid,
                                 const Queries& queries,
                                 const References& references,
                                 const char* function) {
  const R h_q = check_particle_values(exec, queries, function, "queries");
  const R h_r = same_set(queries, references)
                    ? h_q
                    : check_particle_values(exec, references, function, "references");
  SPHAD_REQUIRE(grid.sorted_index.size() == references.size(), function, "neighbors",
                sphad::detail::concat("is a grid over ", grid.sorted_index.size(),
                                      " references but the call has ", references.size(),
                                      " (rebuild it after particles are added or removed)"));
  const R needed = search::max_search_radius<S>(h_q, h_r);
  SPHAD_REQUIRE(h_q < R(0) || h_r < R(0) || needed <= grid.radius, function, "neighbors",
                sphad::detail::concat("is a grid for search radius ", grid.radius,
                                      " but the supports need ", needed,
                                      " (rebuild it after supports grow)"));
  return GridNeighbors<S, D, R>{grid.view()};
}

/// Launches a call already checked (`validate_call`, `traversal`): `store(i, value)` receives
/// each query's result, `neighbors` and `factor` are what the checks returned.
template <class Op,
          class Exec,
          class Neighbors,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr,
          class Store>
void launch_all(const Exec& exec,
                const Neighbors& neighbors,
                const Queries& queries,
                const References& references,
                const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
                const QueryValues& query_values,
                const ReferenceValues& reference_values,
                OperationDirection direction,
                typename Queries::primal_scalar factor,
                const Corr& corrections,
                Store store,
                bool skip_self_pairs = false) {
  using Launch =
      Evaluate<Op, Neighbors, Queries, References, QueryValues, ReferenceValues, Corr, Store>;
  exec::for_each_index(exec, queries.size(),
                       Launch{neighbors, queries, references, domain, kind_filter(direction),
                              query_values, reference_values, factor, corrections, store,
                              skip_self_pairs});
}

/// Validates a call whose output has already been checked and launches it: `store(i, value)`
/// receives each query's result.
template <class Op,
          class Exec,
          class Adjacency,
          class Queries,
          class References,
          class QueryValues,
          class ReferenceValues,
          class Corr,
          class Store>
void evaluate_all(const Exec& exec,
                  const Queries& queries,
                  const References& references,
                  const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
                  const Adjacency& adjacency,
                  const QueryValues& query_values,
                  const ReferenceValues& reference_values,
                  const ApplyOptions<typename Queries::primal_scalar>& options,
                  const Corr& corrections,
                  Store store,
                  const char* function,
                  bool skip_self_pairs = false) {
  const auto factor = validate_call<Op>(queries, references, domain, query_values, reference_values,
                                        options, corrections, function);
  const auto neighbors = traversal<Op::support>(exec, adjacency, queries, references, function);
  launch_all<Op>(exec, neighbors, queries, references, domain, query_values, reference_values,
                 options.direction, factor, corrections, store, skip_self_pairs);
}

} // namespace ops::detail

/// Evaluates operator `Op` at every query particle, writing one output per query into caller
/// memory `out` ([Nq] in the space's memory, shaped per operator, decisions O1–O3).
/// `adjacency` is a neighbour list (rows in query order, reference indices; e.g. from
/// `build_neighbor_list` with a scheme at least as wide as Op's) or a `search::HashGrid` over
/// the reference positions built with `search::build_search_grid<Op::support>`, traversed
/// directly (decision N5: the same pairs in the same order, so bitwise equal results).
/// Allocates nothing and never synchronizes: on CUDA the call can be captured into a graph.
/// Kinds and `options.direction` filter pairs; filtered queries get 0. Self and coincident
/// pairs are summed (O8). Throws `InvalidArgument` before any launch for size mismatches,
/// missing densities or values, a list of the wrong length, an output of the wrong length, bad
/// domains, unknown directions, bad calibration and incomplete correction states (O6). Nq = 0
/// launches nothing; Nr = 0 gives zeros (O7).
/// Every floating input may carry tangents (forward mode, architecture §3): a set or correction
/// state with `Dual` elements or `DualView`s (`with_tangents`), or dual field values; the output
/// then carries the directional derivatives (`jvp` returns them as separate arrays).
/// @param query_values, reference_values  field values [Nq], [Nr] (Density, Covariance: none):
///        `Span`s of scalars, `Vec`s or `Mat`s, or `DualView`s of them.
template <class Op,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          class QueryValues,
          class ReferenceValues,
          class Corr = ops::Uncorrected>
void apply_into(
    const Exec& exec,
    const Queries& queries,
    const References& references,
    const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
    const Adjacency& adjacency,
    const QueryValues& query_values,
    const ReferenceValues& reference_values,
    Span<ops::detail::output_of_t<Op, Queries, References, QueryValues, ReferenceValues, Corr>> out,
    const ApplyOptions<typename Queries::primal_scalar>& options = {},
    const Corr& corrections = {}) {
  constexpr const char* function = "apply";
  SPHAD_REQUIRE(
      out.size == queries.size(), function, "out",
      sphad::detail::concat("has ", out.size, " entries for ", queries.size(), " queries"));
  using Out = ops::detail::output_of_t<Op, Queries, References, QueryValues, ReferenceValues, Corr>;
  ops::detail::evaluate_all<Op>(exec, queries, references, domain, adjacency, query_values,
                                reference_values, options, corrections,
                                ops::detail::StoreAt<Out>{out.data}, function);
}

/// `apply_into` with the output allocated here: a `Buffer` of Nq outputs in the memory of
/// `Exec` (stream-ordered on CUDA: still no synchronization). `Adjacency` is a `NeighborList`
/// or a `search::HashGrid` (grid traversal).
template <class Op,
          class Exec,
          class Queries,
          class References,
          class Adjacency,
          class QueryValues = Span<const ops::NoField>,
          class ReferenceValues = QueryValues,
          class Corr = ops::Uncorrected>
Buffer<ops::detail::output_of_t<Op, Queries, References, QueryValues, ReferenceValues, Corr>, Exec>
apply(const Exec& exec,
      const Queries& queries,
      const References& references,
      const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
      const Adjacency& adjacency,
      const QueryValues& query_values = {},
      const ReferenceValues& reference_values = {},
      const ApplyOptions<typename Queries::primal_scalar>& options = {},
      const Corr& corrections = {}) {
  using Out = ops::detail::output_of_t<Op, Queries, References, QueryValues, ReferenceValues, Corr>;
  Buffer<Out, Exec> out(exec, ops::detail::checked_size(queries, "apply", "queries"));
  apply_into<Op>(exec, queries, references, domain, adjacency, query_values, reference_values,
                 Span<Out>{out.data(), out.size()}, options, corrections);
  return out;
}

} // namespace sphad
