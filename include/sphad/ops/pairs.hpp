// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/domain.hpp>
#include <sphad/pair/corrections.hpp>
#include <sphad/pair/leaves.hpp>
#include <sphad/pair/options.hpp>
#include <sphad/pair/pair.hpp>
#include <sphad/span.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>

/// \file
/// \brief `ops::pairs`: who pairs with whom — the query and reference sets, the domain, the
/// neighbour list (or search grid) and the call's options — bound once, so an operator call
/// reads `apply<Op>(exec, pairs, values)`; and the parsing of the value arguments that follow
/// the pairs in every verb (`apply`, `apply_into`, `jvp`, `jvp_into`, `record`).

namespace sphad::ops {

/// The pairs of an operator call: the query and reference sets (views, held by value: their
/// arrays must outlive the calls), the periodic domain, the adjacency (a `NeighborList` or a
/// `search::HashGrid`, held by reference: it must outlive the calls) and the options (the
/// direction filter and the lattice calibration). Make one with `ops::pairs`; a solver step
/// makes one per list and passes it to every operator call over that list.
template <class Queries, class References, class Adjacency>
struct Pairs {
  using queries_type = Queries;
  using references_type = References;
  using adjacency_type = Adjacency;
  using domain_type = Domain<Queries::dim, typename Queries::primal_scalar>;
  using options_type = ApplyOptions<typename Queries::primal_scalar>;

  Queries queries;
  References references;
  domain_type domain;
  const Adjacency* adjacency = nullptr;
  options_type options{};

  /// The same pairs with other options (direction, calibration).
  Pairs with_options(const options_type& other) const {
    Pairs out = *this;
    out.options = other;
    return out;
  }
};

/// The pairs of `set` with itself over `adjacency` (a neighbour list built from the set's
/// search points, or a grid over them): queries and references are the same particles.
template <class Set, class Adjacency>
Pairs<Set, Set, Adjacency> pairs(const Set& set,
                                 const Domain<Set::dim, typename Set::primal_scalar>& domain,
                                 const Adjacency& adjacency,
                                 const ApplyOptions<typename Set::primal_scalar>& options = {}) {
  return {set, set, domain, &adjacency, options};
}

/// The pairs of `queries` with `references` over `adjacency` (rows in query order, reference
/// indices).
template <class Queries, class References, class Adjacency>
Pairs<Queries, References, Adjacency>
pairs(const Queries& queries,
      const References& references,
      const Domain<Queries::dim, typename Queries::primal_scalar>& domain,
      const Adjacency& adjacency,
      const ApplyOptions<typename Queries::primal_scalar>& options = {}) {
  static_assert(Queries::dim == References::dim,
                "sphad::ops::pairs: queries and references have different dimensions");
  return {queries, references, domain, &adjacency, options};
}

/// The pairs hold the adjacency by reference: a temporary list would be gone before the call.
template <class Set, class Adjacency, std::enable_if_t<!std::is_reference_v<Adjacency>, int> = 0>
void pairs(const Set&,
           const Domain<Set::dim, typename Set::primal_scalar>&,
           Adjacency&&,
           const ApplyOptions<typename Set::primal_scalar>& = {}) = delete;
template <class Queries,
          class References,
          class Adjacency,
          std::enable_if_t<!std::is_reference_v<Adjacency>, int> = 0>
void pairs(const Queries&,
           const References&,
           const Domain<Queries::dim, typename Queries::primal_scalar>&,
           Adjacency&&,
           const ApplyOptions<typename Queries::primal_scalar>& = {}) = delete;

template <class T>
inline constexpr bool is_pairs_v = false;
template <class Q, class R, class A>
inline constexpr bool is_pairs_v<Pairs<Q, R, A>> = true;

namespace detail {

/// Arg I of Args, or Fallback past their end.
template <bool In, std::size_t I, class Fallback, class... Args>
struct ArgOr {
  using type = Fallback;
};
template <std::size_t I, class Fallback, class... Args>
struct ArgOr<true, I, Fallback, Args...> {
  using type = std::tuple_element_t<I, std::tuple<Args...>>;
};
template <std::size_t I, class Fallback, class... Args>
using arg_or_t = typename ArgOr<(I < sizeof...(Args)), I, Fallback, Args...>::type;

/// The value arguments of a call after its pairs: none (an operator without fields), one view
/// for both sides, or the query values then the reference values; then, optionally, the
/// corrections.
template <class... Args>
struct CallValues {
  static constexpr std::size_t count = sizeof...(Args);
  using last = arg_or_t<(count > 0 ? count - 1 : 0), NoField, Args...>;
  static constexpr bool corrected = count > 0 && is_corrections_v<last>;
  static constexpr std::size_t values = count - (corrected ? 1 : 0);
  static constexpr bool any_options = (is_options_v<Args> || ...);
  static constexpr bool well_formed = values <= 2 && !any_options;
  using query = arg_or_t<0, Span<const NoField>, Args...>;
  using query_values = std::conditional_t<values == 0, Span<const NoField>, query>;
  using reference_values =
      std::conditional_t<values == 2, arg_or_t<1, NoField, Args...>, query_values>;
  using corrections = std::conditional_t<corrected, last, Uncorrected>;
};

/// A verb's type `Of<Op, Queries, References, QueryValues, ReferenceValues, Corrections>` (its
/// output, its JVP's primal) for Op over pairs P with the value arguments V (`NoField` when they
/// are malformed: the verb's own check then names the mistake).
template <template <class, class, class, class, class, class> class Of,
          class Op,
          class P,
          class V,
          bool = V::well_formed>
struct PairsCall {
  using type = NoField;
};
template <template <class, class, class, class, class, class> class Of, class Op, class P, class V>
struct PairsCall<Of, Op, P, V, true> {
  using type = Of<Op,
                  typename P::queries_type,
                  typename P::references_type,
                  typename V::query_values,
                  typename V::reference_values,
                  typename V::corrections>;
};
template <template <class, class, class, class, class, class> class Of,
          class Op,
          class P,
          class... Args>
using pairs_call_t = typename PairsCall<Of, Op, P, CallValues<Args...>>::type;

/// Calls f(query_values, reference_values, corrections) with a call's value arguments (the
/// caller's own objects, not copies; no-field views and `Uncorrected` where absent).
template <class F, class... Args>
decltype(auto) with_call_values(F&& f, const Args&... args) {
  using V = CallValues<Args...>;
  static_assert(!V::any_options,
                "sphad: the options belong to the pairs (ops::pairs(set, domain, list, options) "
                "or pairs.with_options(options)), not to the call");
  static_assert(V::any_options || V::values <= 2,
                "sphad: after the pairs come the field values (one view for both sides, or the "
                "query values then the reference values), then optionally the corrections");
  const auto all = std::forward_as_tuple(args...);
  const auto corrected = [&](const auto& qv, const auto& rv) -> decltype(auto) {
    if constexpr (V::corrected) {
      return f(qv, rv, std::get<V::count - 1>(all));
    } else {
      return f(qv, rv, Uncorrected{});
    }
  };
  if constexpr (V::values == 0) {
    const Span<const NoField> none{};
    return corrected(none, none);
  } else if constexpr (V::values == 1) {
    return corrected(std::get<0>(all), std::get<0>(all));
  } else {
    return corrected(std::get<0>(all), std::get<1>(all));
  }
}

} // namespace detail
} // namespace sphad::ops
