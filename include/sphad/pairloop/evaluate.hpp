// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/pair/concept.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/pairloop/block_rows.hpp>
#include <sphad/pairloop/lane_sums.hpp>
#include <sphad/pairloop/plan.hpp>
#include <sphad/pairloop/vocabulary.hpp>
#include <sphad/particles.hpp>
#include <sphad/scalar_traits.hpp>
#include <sphad/search/hash_grid.hpp>
#include <sphad/search/neighbor_list.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

/// \file
/// \brief `Evaluate`: one query particle's sum of an operator's pair terms (the loop body of
/// `apply`, `jvp` and the reverse passes' primal), with the call's types (`CallTypes`) and the
/// neighbour sources (a list's rows, the search grid).

namespace sphad {

namespace detail {

template <class View, class = void>
inline constexpr bool has_data_pointer_v = false;
template <class View>
inline constexpr bool has_data_pointer_v<
    View,
    std::enable_if_t<std::is_pointer_v<decltype(std::declval<const View&>().data())>>> = true;

/// A host prefetch of element j of a view with a `data` pointer (nothing on the device, for
/// other views, or past the end).
template <class View>
SPHAD_HOST_DEVICE SPHAD_INLINE void prefetch_element(const View& view, std::int64_t j) {
#if !SPHAD_DEVICE_PASS && defined(__GNUC__)
  if constexpr (has_data_pointer_v<View>) {
    if (j < view.size()) {
      __builtin_prefetch(view.data() + j);
    }
  }
#else
  (void)view;
  (void)j;
#endif
}

} // namespace detail

namespace pairloop {

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
/// primal position and support: the neighbour set carries no tangents).
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

/// Whether V is a std::vector.
template <class V>
inline constexpr bool is_std_vector_v = false;
template <class T, class A>
inline constexpr bool is_std_vector_v<std::vector<T, A>> = true;

/// Field values as a view: a std::vector (host memory) as a `Span` of its elements, any view
/// as itself.
template <class V>
decltype(auto) as_view(const V& values) {
  if constexpr (is_std_vector_v<V>) {
    return Span<const typename V::value_type>(values);
  } else {
    return (values);
  }
}

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
  static_assert(check_operator<Op>());
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

/// One query particle's sum: zero when its kind is filtered out, else the operator's pair terms
/// over the accepted neighbours, accumulated in neighbour order; `store` writes it. Every input is
/// read through its view and converted to the call's scalar.
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
  using Operator = Op;
  using Corrections = Corr;
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
  /// self term is structurally zero, sets it.
  bool skip_self_pairs;

  template <class X, class View>
  SPHAD_HOST_DEVICE SPHAD_INLINE static X read(const View& view, std::int64_t i) {
    return sphad::detail::convert_scalars<X>(view[i]);
  }
  template <class X, class View>
  SPHAD_HOST_DEVICE SPHAD_INLINE static X read_optional(const View& view, std::int64_t i) {
    return view.size() > 0 ? read<X>(view, i) : X(0);
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
    return references.volumes.size() > 0
               ? read<V>(references.volumes, j)
               : V(safe_divide(read<typename S::mass>(references.masses, j),
                               read_optional<typename S::density>(references.densities, j)));
  }

  /// Reference j's field value as the pair terms read it (grad-h applied); none without values.
  SPHAD_HOST_DEVICE SPHAD_INLINE F reference_value(std::int32_t j) const {
    if constexpr (Op::needs_values) {
      const F f = read<F>(reference_values, j);
      if constexpr (Op::uses_grad_h) {
        return corrections.grad_h.reference(f, j);
      } else {
        return f;
      }
    } else {
      return F{};
    }
  }

  /// The particle inputs of the pair (query i, reference j): what a split operator's
  /// combination reads (V_j as given, or `reference_volume(j)`).
  SPHAD_HOST_DEVICE SPHAD_INLINE auto
  make_particles(std::int64_t i, std::int32_t j, const QueryInputs& q) const {
    return make_particles(i, j, q, reference_volume(j));
  }
  SPHAD_HOST_DEVICE SPHAD_INLINE auto make_particles(std::int64_t i,
                                                     std::int32_t j,
                                                     const QueryInputs& q,
                                                     const typename S::volume& volume_j) const {
    return ParticlePair<D, S, F>{i,
                                 j,
                                 read<typename S::mass>(references.masses, j),
                                 q.rho,
                                 read_optional<typename S::density>(references.densities, j),
                                 volume_j,
                                 q.f,
                                 reference_value(j)};
  }

  /// The pair (query i, reference j) as the operator's term and kernel part read it: one
  /// aggregate, its particle part built in place (as `make_particles` builds it).
  SPHAD_HOST_DEVICE SPHAD_INLINE auto
  make_pair(std::int64_t i, std::int32_t j, const QueryInputs& q) const {
    return Pair<typename Op::kernel_type, Op::support, D, S, F, Corr>{
        {i, j, read<typename S::mass>(references.masses, j), q.rho,
         read_optional<typename S::density>(references.densities, j), reference_volume(j), q.f,
         reference_value(j)},
        corrections,
        domain.difference(q.x, read<Vec<typename S::position, D>>(references.positions, j)),
        q.h,
        read<typename S::support>(references.supports, j),
        factor};
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
    return ops::pair_term<Op>(make_pair(i, j, q));
  }

  /// Whether pair (i, j) is summed (its reference's kind accepted; not a skipped self pair).
  SPHAD_HOST_DEVICE SPHAD_INLINE bool accepts(std::int64_t i, std::int32_t j) const {
    return filter.accepts_reference(references.kinds[j]) && !(skip_self_pairs && j == i);
  }

  static constexpr int L = row_lanes<primal_t<T>>();
  static constexpr bool blocks =
      PairPlan<Op, Corr>::template forward_blocks<S, std::is_same_v<Neighbors, ListNeighbors>, F>();

  SPHAD_HOST_DEVICE SPHAD_FLATTEN void operator()(std::int64_t i) const {
    Out sum{};
    if (filter.accepts_query(queries.kinds[i])) {
      const QueryInputs q = query_inputs(i);
      LaneSums<Out, L> sums;
      if constexpr (blocks) {
#if SPHAD_HAS_PACKS
        row_in_blocks(*this, i, q, sums);
#endif
      } else if constexpr (std::is_same_v<Neighbors, ListNeighbors>) {
        list_row(i, q, neighbors.offsets[i], sums);
      } else {
        int lane = 0; // the entry's place in the row, mod L (as the blocks count it)
        neighbors.for_each(i, q.x, q.h, [&](std::int32_t j) {
          if (accepts(i, j)) {
            sums.add(lane, pair_term(i, j, q));
          }
          lane = lane + 1 == L ? 0 : lane + 1;
        });
      }
      sum = sums.total();
    }
    store(i, sum);
  }

  /// Entries [k, end of row i) of a list, one pair at a time, entry k + l into lane l mod L
  /// (k at a multiple of L from the row's start): L entries per step, each lane's index a
  /// constant, so that the sums stay in registers.
  SPHAD_HOST_DEVICE SPHAD_INLINE void
  list_row(std::int64_t i, const QueryInputs& q, std::int64_t k, LaneSums<Out, L>& sums) const {
    const std::int64_t end = neighbors.offsets[i + 1];
    const auto entry = [&](std::int64_t at, int lane) SPHAD_LAMBDA_INLINE {
      const std::int32_t j = neighbors.neighbors[at];
      if (accepts(i, j)) {
        sums.add(lane, pair_term(i, j, q));
      }
    };
    // (The lane as `decltype(l)::value`: integral_constant's conversion is host-only for nvcc.)
    for (; k + L <= end; k += L) {
      each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE {
        constexpr int lane = decltype(l)::value;
        entry(k + lane, lane);
      });
    }
    each_lane<L>([&](auto l) SPHAD_LAMBDA_INLINE {
      constexpr int lane = decltype(l)::value;
      if (k + lane < end) {
        entry(k + lane, lane);
      }
    });
  }
};

} // namespace pairloop

} // namespace sphad
